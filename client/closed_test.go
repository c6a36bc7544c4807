package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/agentcall/acbridge/client"
	"github.com/coder/websocket"
)

func TestPeerClosed(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: &net.AddrError{}}
	for err, want := range map[error]bool{
		fmt.Errorf("failed to read frame header: %w", io.EOF):                                 true,
		fmt.Errorf("read: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}): true,
		fmt.Errorf("x: %w", websocket.CloseError{Code: websocket.StatusNormalClosure}):        true,
		context.DeadlineExceeded: false,
		errors.New("refused"):    false,
		reset:                    false,
	} {
		if got := client.PeerClosed(err); got != want {
			t.Errorf("PeerClosed(%v) = %v", err, got)
		}
	}
}
