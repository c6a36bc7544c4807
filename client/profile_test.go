package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// startRaw discovers a and starts a session with card edited by edit.
// agentServer is an agent a test starts sessions with: clienttest.Server,
// or the hostile agent's server.
type agentServer interface {
	Base() string
	Policy() *client.Policy
}

func startRaw(t *testing.T, a agentServer, edit func(*protocol.Card), mods ...protocol.Modality) (*client.Session, error) {
	t.Helper()
	ctx := context.Background()
	ag, err := client.Discover(ctx, a.Base(), "", a.Policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	card := *ag.Card
	if edit != nil {
		edit(&card)
	}
	s, err := client.Start(ctx, tr, &card, &client.Options{SessionID: "proof-1", Modalities: mods})
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// Spec "Discovery": runtime connectors suppress physical capabilities and
// reject sends for unsupported persisted profiles. A card that never went
// through ParseCard (here: http.sse accepting both modalities) makes the
// client offer nothing and refuse every observation locally.
func TestUnsupportedProfileSuppressesPhysical(t *testing.T) {
	got := make(chan *protocol.ClientMessage, 8)
	a := clienttest.NewServer(t, func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
		for {
			m := clienttest.ReadClient(ctx, t, c)
			if m == nil {
				return
			}
			got <- m
			if m.Type == protocol.TypeSessionStart {
				clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventSessionEstablished})
			}
		}
	})
	s, err := startRaw(t, a, func(c *protocol.Card) { c.Params.AGUI.Transport = "http.sse" }, protocol.NFC, protocol.Photo)
	if err != nil {
		t.Fatal(err)
	}
	if start := <-got; start.ClientCapabilities.Modalities() != nil {
		t.Fatalf("session.start offered %v on an http.sse card", start.ClientCapabilities.Modalities())
	}
	obj := &protocol.Observation{SchemaVersion: "0.1", ObservationID: "scan-1", CapturedAt: "2026-01-01T00:00:00Z", Intent: "identify",
		Object: &protocol.Object{ObjectRef: "urn:agentcall:object:x", Carrier: "localTag", Assurance: "unverifiedTag", PayloadSHA256: strings.Repeat("0", 64)}}
	if _, err := s.Observe(context.Background(), obj, ""); !hasCode(err, protocol.CodeObservationNegotiation) {
		t.Fatalf("observation on an http.sse card: %v", err)
	}
	select {
	case m := <-got:
		t.Fatalf("the agent received %s", m.Type)
	case <-time.After(200 * time.Millisecond):
	}
}

func hasCode(err error, code string) bool {
	for _, c := range protocol.Codes(err) {
		if c == code {
			return true
		}
	}
	return false
}

// An agent that answers session.start with a failure keeps its own code
// and message; one that claims a resumed session is refused, since the
// client never asks to resume.
func TestStartRefusals(t *testing.T) {
	for _, c := range []struct {
		name  string
		first protocol.Event
		code  string
		msg   string
	}{
		{"agent failure", protocol.Event{Type: protocol.EventFailure, Code: "auth.expired", Message: "renew the enrollment"}, "auth.expired", "renew the enrollment"},
		{"resumed", protocol.Event{Type: protocol.EventSessionEstablished, Resumed: true}, protocol.CodeSessionResumed, "resume"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := clienttest.NewServer(t, func(ctx context.Context, conn *websocket.Conn, _ *http.Request) {
				clienttest.ReadClient(ctx, t, conn)
				clienttest.WriteEnv(ctx, conn, 1, c.first)
				conn.Read(ctx)
			})
			_, err := startRaw(t, a, nil)
			if !hasCode(err, c.code) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("Start: %v; want code %s with %q", err, c.code, c.msg)
			}
		})
	}
}

// The client offers the binding's WebSocket subprotocol, which the
// reference agent lists, and no A2A-Extensions header.
func TestOffersWSSubprotocol(t *testing.T) {
	offered := make(chan string, 1)
	a := clienttest.NewServer(t, func(ctx context.Context, c *websocket.Conn, r *http.Request) {
		offered <- r.Header.Get("Sec-WebSocket-Protocol") + "|" + r.Header.Get("A2A-Extensions")
		clienttest.ReadClient(ctx, t, c)
		clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventSessionEstablished})
		c.Read(ctx)
	})
	if _, err := startRaw(t, a, nil); err != nil {
		t.Fatal(err)
	}
	// An A2A-Extensions header does not negotiate the AG-UI connection, so
	// the client sends none.
	if got := <-offered; got != protocol.WSBinding+"|" {
		t.Fatalf("Sec-WebSocket-Protocol|A2A-Extensions %q, want %s|", got, protocol.WSBinding)
	}
}
