package client_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
)

// hostileServer serves a hostileagent on loopback, under the
// local-development policy the hostile agent's plain http needs.
type hostileServer struct{ url string }

func (h hostileServer) Base() string           { return h.url }
func (h hostileServer) Policy() *client.Policy { return &client.Policy{AllowInsecureLocal: true} }

// hostileSession starts a session with a hostileagent in mode and returns
// the agent (closed at cleanup) and the session.
func hostileSession(t *testing.T, mode hostileagent.Mode) (*hostileagent.Agent, *client.Session) {
	t.Helper()
	a := hostileagent.New(&hostileagent.Options{Mode: mode})
	srv := httptest.NewServer(a)
	t.Cleanup(func() { a.Close(); srv.Close() })
	s, err := startRaw(t, hostileServer{srv.URL}, nil, protocol.NFC)
	if err != nil {
		t.Fatal(err)
	}
	return a, s
}

// ended waits for the session to end by itself and for the agent to see
// the TCP connection end, and returns what the agent saw.
func ended(t *testing.T, a *hostileagent.Agent, s *client.Session) hostileagent.Conn {
	t.Helper()
	select {
	case <-s.Done():
	case <-time.After(20 * time.Second):
		t.Fatal("the session did not end")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if a.Wait(ctx, func() bool { return len(a.Conns()) > 0 }) == nil {
		return a.Conns()[0]
	}
	t.Fatal("the agent never saw the connection end")
	return hostileagent.Conn{}
}

// A frame declaring 1 GiB is refused with frame.size and the connection
// dropped at once: the library's own close would keep reading the trickled
// body for five seconds.
func TestHugeFrameIsDroppedAtOnce(t *testing.T) {
	a, s := hostileSession(t, hostileagent.HugeFrame)
	c := ended(t, a, s)
	if codes := protocol.Codes(s.Err()); len(codes) == 0 || codes[0] != protocol.CodeFrameSize {
		t.Errorf("session ended with %v, want frame.size", s.Err())
	}
	if c.CloseCode != 1009 {
		t.Errorf("close code %d, want 1009 (message too big)", c.CloseCode)
	}
	t.Logf("header to TCP end %s, %d KiB trickled", c.HugeToEnd.Round(time.Millisecond), c.Trickled>>10)
	// Generous for a loaded machine, and still below the library's 5 s.
	if c.HugeToEnd > 4*time.Second {
		t.Errorf("the client kept the refused frame's connection %s", c.HugeToEnd)
	}
}

// A ping flood is answered within the budget, then the connection is
// closed with 1008 ping.flood and the session reports it.
func TestPingFloodClosesTheConnection(t *testing.T) {
	a, s := hostileSession(t, hostileagent.PingFlood)
	c := ended(t, a, s)
	if !errors.Is(s.Err(), wsframe.ErrPingFlood) {
		t.Errorf("session ended with %v, want ErrPingFlood", s.Err())
	}
	if c.CloseCode != 1008 {
		t.Errorf("close code %d, want 1008 (policy violation)", c.CloseCode)
	}
	t.Logf("pings sent %d, pongs %d, connection lasted %s", c.PingsSent, c.PongsReceived, c.Lasted.Round(time.Millisecond))
	// The budget refills at 2/s, so a slow machine may answer a few more.
	if c.PongsReceived > wsframe.DefaultPingBurst+10 {
		t.Errorf("%d pongs answered, budget %d", c.PongsReceived, wsframe.DefaultPingBurst)
	}
}
