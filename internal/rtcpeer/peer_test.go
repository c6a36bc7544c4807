package rtcpeer

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/pion/webrtc/v4"
)

var errLost = errors.New("lost")

func newTestPeer(t *testing.T, side string) *Peer {
	t.Helper()
	p, err := NewPeer(loopbackAPI(t), webrtc.Configuration{}, side, slog.New(slog.DiscardHandler), func(what string) error {
		return errors.Join(errLost, errors.New(what))
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A Peer writes on its channel once it has one, and the other side's
// vanishing ends its Life with the side's loss error, naming what pion saw.
func TestPeerLifecycle(t *testing.T) {
	a, b := newTestPeer(t, "client"), newTestPeer(t, "agent")
	if err := a.Write([]byte(`{}`)); !errors.Is(err, errNotOpen) {
		t.Fatalf("write before the channel opened: %v", err)
	}
	ca, cb := connect(t, a.PC, b.PC)
	a.SetChannel(ca)
	b.SetChannel(cb)
	got := make(chan []byte, 1)
	go cb.ReadFrames("too large", func(frame []byte, err error) bool {
		if err == nil {
			got <- frame
		}
		return err == nil
	})
	if err := a.Write([]byte(`{"type":"x"}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case f := <-got:
		if !bytes.Equal(f, []byte(`{"type":"x"}`)) {
			t.Fatalf("read %q", f)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the frame did not arrive")
	}
	if a.Life.Err() != nil {
		t.Fatalf("ended while up: %v", a.Life.Err())
	}
	// b goes away without a word: a notices through pion's state changes.
	b.Shutdown(b.Channel(), false, 0)
	b.Life.Stop()
	select {
	case <-a.Life.Ended():
	case <-time.After(30 * time.Second):
		t.Fatal("the other side's close did not end the connection")
	}
	if err := a.Life.Err(); !errors.Is(err, errLost) || !(strings.Contains(err.Error(), "ICE") || strings.Contains(err.Error(), "peer connection")) {
		t.Fatalf("cause %v", err)
	}
	a.Shutdown(a.Channel(), false, 0)
	a.Life.Stop()
}
