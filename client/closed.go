package client

import (
	"errors"
	"io"
	"syscall"

	"github.com/coder/websocket"
)

// PeerClosed reports whether err means the agent closed the connection (a
// close frame, the stream ending or reset), as opposed to a refusal, a
// timeout or a protocol error: a person is told "the agent closed the
// connection" rather than a library's wording.
func PeerClosed(err error) bool {
	var ce websocket.CloseError
	return errors.As(err, &ce) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
