package agent

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// The public golden trace's client messages, replayed byte for byte, must
// produce exactly its server envelopes: types, order, sequences,
// interaction ids, outcomes and texts.
func TestWalkthroughReplaysExactly(t *testing.T) {
	steps := walkthrough(t)
	ta := startAgent(t, nil)
	c := dial(t, ta)
	for i, st := range steps {
		switch st.Direction {
		case "client":
			var compact bytes.Buffer
			if err := json.Compact(&compact, st.Message); err != nil {
				t.Fatal(err)
			}
			c.writeRaw(websocket.MessageText, compact.Bytes())
		case "server":
			got := c.readRaw()
			same, err := sameJSON(got, st.Message)
			if err != nil {
				t.Fatal(err)
			}
			if !same {
				t.Fatalf("step %d: agent sent\n%s\ntrace has\n%s", i, got, st.Message)
			}
		default:
			t.Fatalf("step %d: direction %q", i, st.Direction)
		}
	}
	// The trace ends with session.end: the agent closes normally.
	c.expectClose(websocket.StatusNormalClosure)
}

// The same trace, with the agent's side recorded instead of expected,
// passes the protocol's own trace checker: the agent and the checker agree
// on every rule.
func TestRecordedTracePassesCheckTrace(t *testing.T) {
	steps := walkthrough(t)
	ta := startAgent(t, nil)
	c := dial(t, ta)
	var recorded []conformance.Step
	for _, st := range steps {
		if st.Direction == "client" {
			var compact bytes.Buffer
			if err := json.Compact(&compact, st.Message); err != nil {
				t.Fatal(err)
			}
			c.writeRaw(websocket.MessageText, compact.Bytes())
			recorded = append(recorded, conformance.Step{Direction: "client", Message: compact.Bytes()})
			continue
		}
		// One envelope read for each the trace expects at this point.
		recorded = append(recorded, conformance.Step{Direction: "server", Message: c.readRaw()})
	}
	f, err := conformance.Parse(conformance.PublicFixtures)
	if err != nil {
		t.Fatal(err)
	}
	f.Walkthrough = recorded
	cfg, _, err := f.TraceConfig()
	if err != nil {
		t.Fatal(err)
	}
	if err := conformance.CheckTrace(recorded, cfg); err != nil {
		t.Fatalf("recorded trace: %v", err)
	}
	c.expectClose(websocket.StatusNormalClosure)
}

// The conversation needs no transport: fed the trace's client frames
// directly (as a WebRTC data channel adapter will), it returns the trace's
// envelopes.
func TestConversationWithoutTransport(t *testing.T) {
	steps := walkthrough(t)
	a, err := New(&Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	conv := newConversation(a.cfg, slog.New(slog.DiscardHandler))
	var pending []protocol.Envelope
	for i, st := range steps {
		if st.Direction == "client" {
			if len(pending) != 0 {
				t.Fatalf("step %d: %d envelopes the trace does not have", i, len(pending))
			}
			r := conv.receive(st.Message)
			if r.closeErr != nil {
				t.Fatalf("step %d: close %v", i, r.closeErr)
			}
			pending = r.envelopes
			continue
		}
		if len(pending) == 0 {
			t.Fatalf("step %d: the agent sent nothing here", i)
		}
		got, err := protocol.MarshalEnvelope(&pending[0])
		if err != nil {
			t.Fatal(err)
		}
		pending = pending[1:]
		if same, _ := sameJSON(got, st.Message); !same {
			t.Fatalf("step %d: %s, want %s", i, got, st.Message)
		}
	}
	if !conv.sess.Ended() {
		t.Fatal("session.end did not end the session")
	}
}
