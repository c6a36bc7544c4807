package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/protocol"
)

// ReplayOptions configures Replay; nil means the defaults.
type ReplayOptions struct {
	// Strict compares the agent's envelopes one by one with the trace's,
	// in lockstep: types, sequences and members as the trace has them.
	// By default Replay
	// judges by the contract instead (see Replay).
	Strict bool
	// StrictText also compares texts: in lockstep each text.delta and
	// speech.segment, by default the concatenation of a text's deltas.
	StrictText bool
	// StepTimeout bounds the wait for each expected envelope (default 10 s).
	StepTimeout time.Duration
}

// Replay modes, as reports name them.
const (
	ModeContract = "contract"
	ModeStrict   = "strict"
)

// ReplayReport is the outcome of replaying a trace against a live agent.
type ReplayReport struct {
	Mode       string      `json:"mode"`
	Steps      int         `json:"steps"`
	Checked    int         `json:"checked"` // steps that matched before the end or the divergence
	Passed     bool        `json:"passed"`
	Divergence *Divergence `json:"divergence,omitempty"`
	// Tolerances lists each equivalence the contract mode applied.
	Tolerances []Tolerance `json:"tolerances"`
	// TolerancesDropped counts distinct tolerances beyond the report's
	// bound.
	TolerancesDropped int `json:"tolerancesDropped,omitempty"`
}

// Divergence says where the agent first departed from the trace.
type Divergence struct {
	Step      int    `json:"step"` // 1-based
	Direction string `json:"direction"`
	Expected  string `json:"expected"`
	Got       string `json:"got"`
	Reason    string `json:"reason"`
}

func (d *Divergence) String() string {
	return fmt.Sprintf("step %d (%s): %s; expected %s, got %s", d.Step, d.Direction, d.Reason, d.Expected, d.Got)
}

// Replay plays the client side of steps over t and checks what the agent
// sends. Interaction ids are opaque: the id the agent issues replaces the
// trace's in the client's answer. Both directions also go through
// protocol.Session, so an agent that answers in the right order but breaks
// a session rule diverges too: events of a run inside run.started …
// run.completed, one run at a time, strictly increasing sequences, one
// pending request resolved once with its id. Replay closes t.
//
// By default (ModeContract) the agent is judged by the contract's
// equivalences, each listed in the report's Tolerances: a text may come in
// any number of text.delta events (with StrictText their concatenation is
// compared), speech.segment is optional and may come several times,
// unknown event types and members are ignored, sequences may skip, runs
// may begin and end anywhere around a pending request (see window), and
// the trace's client messages need keep only the contract's bounds. Event
// types, interaction kinds, outcomes and failure codes must match the
// trace's in order. With Strict, every envelope must match the trace's in
// lockstep, and the first difference is reported.
//
// card is the agent's card (its modality declarations bound what may be
// requested); nil means a card that accepts and may request everything.
func Replay(ctx context.Context, t client.Transport, card *protocol.Card, steps []Step, opts *ReplayOptions) *ReplayReport {
	o := ReplayOptions{}
	if opts != nil {
		o = *opts
	}
	if o.StepTimeout == 0 {
		o.StepTimeout = 10 * time.Second
	}
	cfg := protocol.SessionConfig{Accepted: allModalities, AgentRequests: allModalities}
	if card != nil {
		cfg = protocol.ConfigFromCard(card)
	}
	p := &replayer{ctx: ctx, t: t, o: o, steps: steps, c: newTraceState(cfg, o.Strict), ids: map[string]string{}}
	r := &ReplayReport{Mode: ModeContract, Steps: len(steps), Tolerances: []Tolerance{}}
	if o.Strict {
		r.Mode = ModeStrict
		r.Checked, r.Divergence = p.lockstep()
	} else {
		r.Checked, r.Divergence = p.contract()
	}
	t.Close(p.cause)
	r.Passed = r.Divergence == nil
	if p.c.tol.list != nil {
		r.Tolerances = p.c.tol.list
	}
	r.TolerancesDropped = p.c.tol.dropped
	return r
}

var allModalities = []protocol.Modality{protocol.NFC, protocol.Photo}

// replayer is one replay's state.
type replayer struct {
	ctx   context.Context
	t     client.Transport
	o     ReplayOptions
	steps []Step
	c     *traceState
	ids   map[string]string // trace interaction id -> agent's
	cause error             // why the transport closes, if a protocol error
}

func diverge(i int, dir, expected, got, reason string) *Divergence {
	return &Divergence{Step: i + 1, Direction: dir, Expected: expected, Got: got, Reason: reason}
}

// send plays the client step i, with the agent's interaction ids.
func (p *replayer) send(i int) *Divergence {
	m, err := p.c.parseClient(i, p.steps[i].Message)
	if err != nil {
		return diverge(i, "client", "a valid client message", "trace message rejected", err.Error())
	}
	if m.InteractionID != "" {
		if id, ok := p.ids[m.InteractionID]; ok {
			m.InteractionID = id
		}
	}
	if err := p.c.client(i, m); err != nil {
		return diverge(i, "client", "a message the session accepts", "refused", err.Error())
	}
	frame, err := protocol.MarshalClientMessage(m)
	if err == nil {
		err = p.t.Send(p.ctx, frame)
	}
	if err != nil {
		return diverge(i, "client", "send", "error", err.Error())
	}
	return nil
}

// recv reads the agent's next envelope while step i expects want, and
// applies it. unknown names its members the contract does not define.
func (p *replayer) recv(i int, want *protocol.Envelope) (got *protocol.Envelope, unknown []string, d *Divergence) {
	rctx, cancel := context.WithTimeout(p.ctx, p.o.StepTimeout)
	frame, err := p.t.Recv(rctx)
	cancel()
	if err != nil {
		p.cause = err
		return nil, nil, diverge(i, "server", summarize(want), "nothing", "no envelope: "+err.Error())
	}
	got, unknown, err = p.c.server(i, frame)
	if err == nil {
		return got, unknown, nil
	}
	p.cause = err
	if got == nil {
		return nil, nil, diverge(i, "server", summarize(want), "an invalid envelope", err.Error())
	}
	if e := got.Event; e.Type == protocol.EventFailure && !p.c.s.Established() {
		// The agent refused the session: its own code and message say
		// why, not the ordering rule this envelope also breaks. The
		// message is quoted: it is the agent's text, for a terminal.
		p.cause = nil
		return nil, nil, diverge(i, "server", summarize(want), summarize(got), fmt.Sprintf("the agent refused the session: %s %q", e.Code, clip(e.Message, 160)))
	}
	return nil, nil, diverge(i, "server", summarize(want), summarize(got), err.Error())
}

// traceEnvelope parses the trace's server step i.
func (p *replayer) traceEnvelope(i int) (*protocol.Envelope, *Divergence) {
	want, err := protocol.ParseEnvelope(p.steps[i].Message)
	if err != nil {
		return nil, diverge(i, "server", "a valid trace envelope", "trace envelope rejected", err.Error())
	}
	return want, nil
}

// lockstep is the strict replay: each server step is one envelope, equal
// to the trace's in type, sequence, members and the fields compare checks.
func (p *replayer) lockstep() (checked int, d *Divergence) {
	for i, step := range p.steps {
		switch step.Direction {
		case "client":
			d = p.send(i)
		case "server":
			var want, got *protocol.Envelope
			var unknown []string
			if want, d = p.traceEnvelope(i); d != nil {
				break
			}
			if got, unknown, d = p.recv(i, want); d != nil {
				break
			}
			reason := compare(want, got, p.ids, p.o.StrictText)
			if reason == "" && got.Sequence != want.Sequence {
				reason = "different sequence"
			}
			if reason == "" && len(unknown) > 0 {
				reason = "members the contract does not define: " + names(unknown)
			}
			if reason != "" {
				d = diverge(i, "server", summarize(want), summarize(got), reason)
			}
		default:
			d = diverge(i, step.Direction, "client or server", step.Direction, "unknown direction")
		}
		if d != nil {
			return i, d
		}
	}
	return len(p.steps), nil
}

func compare(want, got *protocol.Envelope, ids map[string]string, strictText bool) string {
	w, g := want.Event, got.Event
	if w.Type != g.Type {
		return "wrong event type"
	}
	switch w.Type {
	case protocol.EventSessionEstablished:
		if w.Resumed != g.Resumed {
			return "different resumed"
		}
	case protocol.EventInteractionRequested:
		if w.Kind != g.Kind {
			return "wrong interaction kind"
		}
		ids[w.InteractionID] = g.InteractionID
	case protocol.EventInteractionResolved:
		if id, ok := ids[w.InteractionID]; !ok || id != g.InteractionID {
			return "resolved a different interaction"
		}
		if w.Outcome != g.Outcome {
			return "wrong outcome"
		}
	case protocol.EventTextDelta, protocol.EventSpeechSegment:
		if strictText && w.Text != g.Text {
			return "different text (--strict-text)"
		}
	case protocol.EventFailure:
		if w.Code != g.Code {
			return "different failure code"
		}
	}
	return ""
}

func summarize(env *protocol.Envelope) string {
	e := env.Event
	s := fmt.Sprintf("#%d %s", env.Sequence, e.Type)
	switch e.Type {
	case protocol.EventTextDelta, protocol.EventSpeechSegment:
		s += fmt.Sprintf(" %q", clip(e.Text, 80))
	case protocol.EventInteractionRequested:
		s += " " + e.Kind + " " + clip(e.InteractionID, 40)
	case protocol.EventInteractionResolved:
		s += " " + e.Outcome + " " + clip(e.InteractionID, 40)
	case protocol.EventFailure:
		s += " " + e.Code
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// ParseTrace reads a trace: a fixture file's walkthrough, or a bare JSON
// array of steps.
func ParseTrace(b []byte) ([]Step, error) {
	if len(b) > MaxFixtureBytes {
		return nil, fmt.Errorf("conformance: trace file is larger than %d bytes", MaxFixtureBytes)
	}
	var steps []Step
	if t := bytes.TrimSpace(b); len(t) > 0 && t[0] == '[' {
		if err := json.Unmarshal(t, &steps); err != nil {
			return nil, fmt.Errorf("conformance: trace is not a JSON array of steps: %w", err)
		}
	} else {
		f, err := Parse(b)
		if err != nil {
			return nil, err
		}
		steps = f.Walkthrough
	}
	if len(steps) == 0 {
		return nil, errors.New("conformance: the trace has no steps")
	}
	return steps, nil
}

// TraceSessionID is the sessionId of the trace's first session.start, or
// "" when it has none.
func TraceSessionID(steps []Step) string {
	for _, st := range steps {
		if st.Direction != "client" {
			continue
		}
		if m, err := protocol.ParseClientMessage(st.Message); err == nil && m.Type == protocol.TypeSessionStart {
			return m.SessionID
		}
	}
	return ""
}
