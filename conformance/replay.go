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
	// StrictText also compares text.delta and speech.segment texts.
	StrictText bool
	// StepTimeout bounds the wait for each expected envelope (default 10 s).
	StepTimeout time.Duration
}

// ReplayReport is the outcome of replaying a trace against a live agent.
type ReplayReport struct {
	Steps      int         `json:"steps"`
	Checked    int         `json:"checked"` // steps that matched before the end or the divergence
	Passed     bool        `json:"passed"`
	Divergence *Divergence `json:"divergence,omitempty"`
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

// Replay plays the client side of steps over t and checks every server step
// against what the agent sends: event type and order, sequence rules,
// interaction ids and outcomes (and texts with StrictText). Interaction ids
// are opaque: the id the agent issues replaces the trace's in the client's
// answer. Both directions also go through protocol.Session, so an agent that
// answers in the right order but breaks a session rule diverges too. Replay
// closes t.
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
	r := &ReplayReport{Steps: len(steps)}
	var cause error
	defer func() { t.Close(cause) }()
	cfg := protocol.SessionConfig{Accepted: allModalities, AgentRequests: allModalities}
	if card != nil {
		cfg = protocol.ConfigFromCard(card)
	}
	st := protocol.NewSession(cfg)
	ids := map[string]string{} // trace interaction id -> agent's
	diverge := func(i int, dir, expected, got, reason string) *ReplayReport {
		r.Divergence = &Divergence{Step: i + 1, Direction: dir, Expected: expected, Got: got, Reason: reason}
		return r
	}
	for i, step := range steps {
		switch step.Direction {
		case "client":
			m, err := protocol.ParseClientMessage(step.Message)
			if err != nil {
				return diverge(i, "client", "a valid client message", "trace message rejected", err.Error())
			}
			if m.InteractionID != "" {
				if id, ok := ids[m.InteractionID]; ok {
					m.InteractionID = id
				}
			}
			if err := st.Client(m); err != nil {
				return diverge(i, "client", "a message the session accepts", "refused", err.Error())
			}
			frame, err := protocol.MarshalClientMessage(m)
			if err == nil {
				err = t.Send(ctx, frame)
			}
			if err != nil {
				return diverge(i, "client", "send", "error", err.Error())
			}
		case "server":
			want, err := protocol.ParseEnvelope(step.Message)
			if err != nil {
				return diverge(i, "server", "a valid trace envelope", "trace envelope rejected", err.Error())
			}
			rctx, cancel := context.WithTimeout(ctx, o.StepTimeout)
			frame, err := t.Recv(rctx)
			cancel()
			if err != nil {
				cause = err
				return diverge(i, "server", summarize(want), "nothing", "no envelope: "+err.Error())
			}
			got, err := protocol.ParseEnvelope(frame)
			if err != nil {
				cause = err
				return diverge(i, "server", summarize(want), "an invalid envelope", err.Error())
			}
			if e := got.Event; e.Type == protocol.EventFailure && !st.Established() {
				// The agent refused the session: its own code and message say
				// why, not the ordering rule this envelope also breaks. The
				// message is quoted: it is the agent's text, for a terminal.
				return diverge(i, "server", summarize(want), summarize(got), fmt.Sprintf("the agent refused the session: %s %q", e.Code, clip(e.Message, 160)))
			}
			if err := st.Server(got); err != nil {
				cause = err
				return diverge(i, "server", summarize(want), summarize(got), err.Error())
			}
			if reason := compare(want, got, ids, o.StrictText); reason != "" {
				return diverge(i, "server", summarize(want), summarize(got), reason)
			}
		default:
			return diverge(i, step.Direction, "client or server", step.Direction, "unknown direction")
		}
		r.Checked++
	}
	r.Passed = true
	return r
}

var allModalities = []protocol.Modality{protocol.NFC, protocol.Photo}

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
