package conformance_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/protocol"
)

func publicSteps(t *testing.T) []conformance.Step {
	t.Helper()
	steps, err := conformance.ParseTrace(conformance.PublicFixtures)
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// replayAgainst plays served as the agent's side over a WebSocket and
// replays want against it.
func replayAgainst(t *testing.T, served, want []conformance.Step, strictText bool) *conformance.ReplayReport {
	t.Helper()
	return replayOver(t, "websocket", served, want, conformance.ReplayOptions{StrictText: strictText})
}

// findStep is the index of the first step whose message has sub.
func findStep(t *testing.T, steps []conformance.Step, sub string) int {
	t.Helper()
	for i, s := range steps {
		if strings.Contains(string(s.Message), sub) {
			return i
		}
	}
	t.Fatalf("no step has %q", sub)
	return -1
}

func edit(t *testing.T, steps []conformance.Step, i int, from, to string) []conformance.Step {
	t.Helper()
	out := append([]conformance.Step(nil), steps...)
	s := string(out[i].Message)
	if !strings.Contains(s, from) {
		t.Fatalf("step %d has no %q", i+1, from)
	}
	out[i].Message = json.RawMessage(strings.Replace(s, from, to, 1))
	return out
}

func TestReplayConformingAgent(t *testing.T) {
	steps := publicSteps(t)
	r := replayAgainst(t, steps, steps, true)
	if !r.Passed || r.Checked != len(steps) {
		t.Fatalf("%+v %v", r, r.Divergence)
	}
}

func TestReplayTreatsInteractionIDsAsOpaque(t *testing.T) {
	steps := publicSteps(t)
	served := steps
	for i, s := range steps {
		if strings.Contains(string(s.Message), "turn-5-nfc") {
			served = edit(t, served, i, "turn-5-nfc", "req-A")
		}
	}
	r := replayAgainst(t, served, steps, false)
	if !r.Passed {
		t.Fatalf("renamed ids: %v", r.Divergence)
	}
}

func TestReplayReportsFirstDivergence(t *testing.T) {
	steps := publicSteps(t)
	find := func(sub string) int { return findStep(t, steps, sub) }
	cases := []struct {
		name      string
		step      int
		from, to  string
		strict    bool
		wantStep  int
		reasonSub string
	}{
		{"wrong outcome", find(`"outcome": "answered"`), `"answered"`, `"cancelled"`, false, find(`"outcome": "answered"`) + 1, "wrong outcome"},
		{"wrong type", find(`"text": "Proposal cancelled."`), `"type": "text.delta"`, `"type": "speech.segment", "segmentId": "s", "stable": true`, false, find(`"text": "Proposal cancelled."`) + 1, "wrong event type"},
		{"text only with strict", find(`"This is Workshop router."`), `This is Workshop router.`, `I do not know.`, true, find(`"This is Workshop router."`) + 1, "text"},
		{"agent failure before session.established", 1, `"type": "session.established",`,
			`"type": "failure", "code": "auth.expired", "message": "renew the enrollment",`, false, 2, `auth.expired "renew the enrollment"`},
		{"resumed", 1, `"resumed": false`, `"resumed": true`, false, 2, "resume"},
		{"sequence repeat", find(`"sequence": 9,`), `"sequence": 9,`, `"sequence": 8,`, false, find(`"sequence": 9,`) + 1, "sequence"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := replayAgainst(t, edit(t, steps, c.step, c.from, c.to), steps, c.strict)
			if r.Passed || r.Divergence == nil {
				t.Fatal("a divergent agent passed")
			}
			if r.Divergence.Step != c.wantStep || !strings.Contains(r.Divergence.Reason, c.reasonSub) {
				t.Fatalf("divergence %v; want step %d with %q", r.Divergence, c.wantStep, c.reasonSub)
			}
		})
	}
	// Without --strict-text a different text conforms.
	i := find(`"This is Workshop router."`)
	if r := replayAgainst(t, edit(t, steps, i, `This is Workshop router.`, `I do not know.`), steps, false); !r.Passed {
		t.Fatalf("text compared without strict: %v", r.Divergence)
	}
}

// renumber gives server step n the sequence 2n-1 (1, 3, 5 ...): the gaps
// the spec allows ("strictly increasing positive sequence").
func renumber(t *testing.T, steps []conformance.Step) []conformance.Step {
	t.Helper()
	out := make([]conformance.Step, len(steps))
	n := int64(0)
	for i, s := range steps {
		out[i] = s
		if s.Direction != "server" {
			continue
		}
		var env map[string]json.RawMessage
		if err := json.Unmarshal(s.Message, &env); err != nil {
			t.Fatal(err)
		}
		n++
		env["sequence"] = json.RawMessage(strconv.FormatInt(2*n-1, 10))
		b, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		out[i].Message = b
	}
	return out
}

var both = []protocol.Modality{protocol.NFC, protocol.Photo}

func TestReplayAcceptsSequenceGaps(t *testing.T) {
	steps := publicSteps(t)
	gapped := renumber(t, steps)
	if r := replayAgainst(t, gapped, steps, true); !r.Passed {
		t.Fatalf("an agent numbering 1, 3, 5 diverged: %v", r.Divergence)
	}
	if err := conformance.CheckTrace(gapped, protocol.SessionConfig{Accepted: both, AgentRequests: both}); err != nil {
		t.Fatalf("CheckTrace refused gaps: %v", err)
	}
}

// A trace's client input beyond bounds acbridge once chose (the contract
// sets none) is sent as it is, in both modes, with no tolerance to name.
func TestReplaySendsClientInputTheContractAllows(t *testing.T) {
	public := publicSteps(t)
	long := strings.Repeat("ü", 17000) // once acbridge's: 16,384 characters
	trace := edit(t, edit(t, public, 0, `"proof-1"`, `"proof 1"`), 6, `teach object Workshop router`, long)
	for _, strict := range []bool{false, true} {
		received := make(chan []byte, len(public))
		tr, ag := dialAgent(t, "websocket", public, received)
		r := conformance.Replay(context.Background(), tr, ag.Card, trace, &conformance.ReplayOptions{Strict: strict})
		if !r.Passed || len(r.Tolerances) != 0 {
			t.Fatalf("strict %v: %v %+v", strict, r.Divergence, r.Tolerances)
		}
		var first, turn protocol.ClientMessage
		json.Unmarshal(<-received, &first)
		<-received
		json.Unmarshal(<-received, &turn)
		if first.SessionID != "proof 1" || turn.Text != long {
			t.Fatalf("sent sessionId %q and a text of %d characters", first.SessionID, len([]rune(turn.Text)))
		}
	}
}
