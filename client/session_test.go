package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func goldenTrace(t *testing.T) []clienttest.Step {
	t.Helper()
	b, err := os.ReadFile("../conformance/fixtures/physical-conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Walkthrough []clienttest.Step `json:"walkthrough"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f.Walkthrough
}

func startSession(t *testing.T, a *clienttest.Server, mods ...protocol.Modality) *client.Session {
	t.Helper()
	s, err := startRaw(t, a, nil, mods...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func nextEvent(t *testing.T, s *client.Session) protocol.Envelope {
	t.Helper()
	select {
	case env, ok := <-s.Events():
		if !ok {
			t.Fatalf("session ended: %v", s.Err())
		}
		return env
	case <-time.After(5 * time.Second):
		t.Fatal("no event in 5 s")
	}
	return protocol.Envelope{}
}

func TestSessionDrivesGoldenTrace(t *testing.T) {
	steps := goldenTrace(t)
	a := clienttest.NewServer(t, clienttest.PlayServerSide(t, steps))
	s := startSession(t, a, protocol.NFC, protocol.Photo)
	ctx := context.Background()
	for i, st := range steps[2:] { // session.start and session.established are client.Start's
		if st.Direction == "server" {
			var want protocol.Envelope
			json.Unmarshal(st.Message, &want)
			got := nextEvent(t, s)
			if got.Sequence != want.Sequence || got.Event != want.Event {
				t.Fatalf("step %d: got %+v, want %+v", i+3, got, want)
			}
			continue
		}
		var m protocol.ClientMessage
		json.Unmarshal(st.Message, &m)
		var turn int64
		var err error
		switch m.Type {
		case protocol.TypeUserTurn:
			turn, err = s.Say(ctx, m.Text)
		case protocol.TypeUserObservation:
			if m.InteractionID != "" {
				p, ok := s.Pending()
				if !ok || p.ID != m.InteractionID {
					t.Fatalf("step %d: pending %+v %v", i+3, p, ok)
				}
			}
			turn, err = s.Observe(ctx, m.Observation, m.InteractionID)
		case protocol.TypeSessionEnd:
			err = s.End(ctx)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i+3, err)
		}
		if turn != m.Turn {
			t.Fatalf("step %d: sent turn %d, trace has %d", i+3, turn, m.Turn)
		}
	}
	<-s.Done()
}

// misbehave returns a script that establishes a session and then sends one
// bad thing, recording the close status the client answered with.
func misbehave(t *testing.T, bad func(ctx context.Context, c *websocket.Conn) error, status chan<- websocket.StatusCode) func(context.Context, *websocket.Conn, *http.Request) {
	return func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
		if clienttest.ReadClient(ctx, t, c) == nil {
			return
		}
		clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventSessionEstablished})
		if err := bad(ctx, c); err != nil {
			t.Errorf("script: %v", err)
		}
		_, _, err := c.Read(ctx)
		status <- websocket.CloseStatus(err)
	}
}

func TestTransportRules(t *testing.T) {
	cases := []struct {
		name   string
		bad    func(ctx context.Context, c *websocket.Conn) error
		code   string
		status websocket.StatusCode
	}{
		{"131,073-byte frame", func(ctx context.Context, c *websocket.Conn) error {
			return c.Write(ctx, websocket.MessageText, []byte(`{"sequence":2,"event":{"type":"x","pad":"`+strings.Repeat("a", protocol.MaxFrameBytes+1-len(`{"sequence":2,"event":{"type":"x","pad":""}}`))+`"}}`))
		}, protocol.CodeFrameSize, websocket.StatusMessageTooBig},
		{"binary frame", func(ctx context.Context, c *websocket.Conn) error {
			return c.Write(ctx, websocket.MessageBinary, []byte(`{"sequence":2,"event":{"type":"run.started"}}`))
		}, protocol.CodeFrameBinary, websocket.StatusUnsupportedData},
		{"bad UTF-8", func(ctx context.Context, c *websocket.Conn) error {
			return c.Write(ctx, websocket.MessageText, []byte("{\"sequence\":2,\"event\":{\"type\":\"text\xff\"}}"))
		}, protocol.CodeFrameUTF8, websocket.StatusInvalidFramePayloadData},
		{"sequence decrease after a gap", func(ctx context.Context, c *websocket.Conn) error {
			// The gap (1 to 3) conforms; going back to 2 does not.
			if err := clienttest.WriteEnv(ctx, c, 3, protocol.Event{Type: protocol.EventRunStarted}); err != nil {
				return err
			}
			return clienttest.WriteEnv(ctx, c, 2, protocol.Event{Type: protocol.EventRunCompleted})
		}, protocol.CodeSequenceOrder, websocket.StatusPolicyViolation},
		{"sequence repeat", func(ctx context.Context, c *websocket.Conn) error {
			return clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventRunStarted})
		}, protocol.CodeSequenceOrder, websocket.StatusPolicyViolation},
		{"schema", func(ctx context.Context, c *websocket.Conn) error {
			return c.Write(ctx, websocket.MessageText, []byte(`{"sequence":2,"event":{"type":"text.delta"}}`))
		}, protocol.CodeEventSchema, websocket.StatusPolicyViolation},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status := make(chan websocket.StatusCode, 1)
			a := clienttest.NewServer(t, misbehave(t, c.bad, status))
			s := startSession(t, a, protocol.NFC)
			select {
			case <-s.Done():
			case <-time.After(5 * time.Second):
				t.Fatal("session did not end")
			}
			var pe *protocol.Error
			if !errors.As(s.Err(), &pe) || pe.Code != c.code {
				t.Fatalf("session ended with %v, want %s", s.Err(), c.code)
			}
			if got := <-status; got != c.status {
				t.Errorf("close status %d, want %d", got, c.status)
			}
		})
	}
}

func TestLocalRefusalsSendNothing(t *testing.T) {
	got := make(chan string, 8)
	a := clienttest.NewServer(t, func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
		clienttest.ReadClient(ctx, t, c)
		clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventSessionEstablished})
		clienttest.WriteEnv(ctx, c, 2, protocol.Event{Type: "vendor.unknown"})
		for {
			m := clienttest.ReadClient(ctx, t, c)
			if m == nil {
				return
			}
			got <- m.Type
		}
	})
	s := startSession(t, a, protocol.NFC) // photo not offered
	ctx := context.Background()
	img := &protocol.Observation{SchemaVersion: "0.1", ObservationID: "photo-1", CapturedAt: "2026-01-01T00:00:00Z", Intent: "identify",
		Image: &protocol.Image{MediaType: protocol.MediaTypeJPEG, DataBase64: "/9j/2Q==", ByteCount: 4, SHA256: strings.Repeat("0", 64), PixelWidth: 1, PixelHeight: 1}}
	if _, err := s.Observe(ctx, img, ""); protocol.Codes(err)[0] != protocol.CodeObservationNegotiation {
		t.Fatalf("photo outside the negotiated set: %v", err)
	}
	obj := &protocol.Observation{SchemaVersion: "0.1", ObservationID: "scan-1", CapturedAt: "2026-01-01T00:00:00Z", Intent: "identify",
		Object: &protocol.Object{ObjectRef: "urn:agentcall:object:x", Carrier: "localTag", Assurance: "unverifiedTag", PayloadSHA256: strings.Repeat("0", 64)}}
	if _, err := s.Observe(ctx, obj, "turn-9-nfc"); protocol.Codes(err)[0] != protocol.CodeInteractionUnmatched {
		t.Fatalf("answer without a request: %v", err)
	}
	if turn, err := s.Say(ctx, "hello"); err != nil || turn != 1 {
		t.Fatalf("say: %d %v", turn, err)
	}
	if _, err := s.Say(ctx, "again"); protocol.Codes(err)[0] != protocol.CodeRunActive {
		t.Fatalf("second turn while awaiting a run: %v", err)
	}
	if m := <-got; m != protocol.TypeUserTurn {
		t.Fatalf("server saw %s first; refused messages must not be sent", m)
	}
	select {
	case m := <-got:
		t.Fatalf("server saw an extra %s", m)
	case env := <-s.Events():
		t.Fatalf("unknown event delivered: %+v", env)
	case <-time.After(200 * time.Millisecond):
	}
	s.Close()
	if _, err := s.Say(ctx, "late"); !errors.Is(err, client.ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
}
