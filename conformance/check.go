package conformance

import (
	"fmt"

	"github.com/agentcall/acbridge/protocol"
)

// TraceError says at which step a trace first diverged from the rules.
type TraceError struct {
	Step      int // 0-based index into the trace
	Direction string
	Err       error
}

func (e *TraceError) Error() string {
	return fmt.Sprintf("step %d (%s): %v", e.Step+1, e.Direction, e.Err)
}

func (e *TraceError) Unwrap() error { return e.Err }

func traceCause(err error) error {
	if te, ok := err.(*TraceError); ok {
		return te.Err
	}
	return err
}

// TraceOptions configures CheckTraceReport; nil means the default mode.
type TraceOptions struct {
	// Strict checks the trace as acbridge's own client and agent would
	// carry it: acbridge's bounds on client input, no turn while a run is
	// active or awaited, and an end with no run active and no request
	// pending.
	Strict bool
}

// CheckTrace is CheckTraceReport in the default mode, without the
// tolerances.
func CheckTrace(steps []Step, cfg protocol.SessionConfig) error {
	_, err := CheckTraceReport(steps, cfg, nil)
	return err
}

// CheckTraceReport checks a recorded walkthrough for its own consistency
// under the contract: every client message and server envelope valid, and
// the sequence of both directions valid under protocol.Session (first
// message session.start, sequences strictly increasing, turns strictly
// increasing, one run at a time, each request answered or cancelled once).
// The trace must not end inside a run, unless the client ended the
// session (session.end cancels pending work).
//
// By default what the contract allows is tolerated and listed: a turn
// sent while a run is active, unknown event types and members, sequence
// gaps. Strict mode tolerates none of them.
func CheckTraceReport(steps []Step, cfg protocol.SessionConfig, o *TraceOptions) ([]Tolerance, error) {
	c := newTraceState(cfg, o != nil && o.Strict)
	fail := func(i int, dir string, err error) ([]Tolerance, error) {
		return c.tol.list, &TraceError{Step: i, Direction: dir, Err: err}
	}
	for i, st := range steps {
		var err error
		switch st.Direction {
		case "client":
			var m *protocol.ClientMessage
			if m, err = c.parseClient(i, st.Message); err == nil {
				err = c.client(i, m)
			}
		case "server":
			_, _, err = c.server(i, st.Message)
		default:
			err = &protocol.Error{Code: "trace.direction", Message: "direction must be client or server"}
		}
		if err != nil {
			return fail(i, st.Direction, err)
		}
	}
	s := c.s
	if !s.Started() {
		return fail(0, "client", &protocol.Error{Code: protocol.CodeSessionOrder, Message: "the trace never starts a session"})
	}
	_, pending := s.Pending()
	if c.strict && (pending || s.RunActive()) {
		return fail(len(steps)-1, "end", &protocol.Error{Code: protocol.CodeRunOrder, Message: "the trace ends with a run active or a request pending"})
	}
	if s.RunActive() && !s.Ended() {
		return fail(len(steps)-1, "end", &protocol.Error{Code: protocol.CodeRunOrder, Message: "the trace ends inside a run, without session.end"})
	}
	return c.tol.list, nil
}

// traceState is the rules a trace's two directions are checked under:
// protocol.Session, and unless strict the contract's tolerances, which it
// records. Trace checks and replays share it, so the two cannot disagree.
type traceState struct {
	s        *protocol.Session
	strict   bool
	lastTurn int64 // the highest turn seen, tolerated ones included
	tol      tolerances
}

func newTraceState(cfg protocol.SessionConfig, strict bool) *traceState {
	return &traceState{s: protocol.NewSession(cfg), strict: strict}
}

// parseClient parses the trace's client message at step i. Both modes hold
// it to the same rules: protocol's schemas keep only the contract's bounds
// (docs/conformance.md, "Bounds on what a peer sends"), so a trace recorded
// against another client is not refused for acbridge's choices.
func (c *traceState) parseClient(i int, raw []byte) (*protocol.ClientMessage, error) {
	return protocol.ParseClientMessage(raw)
}

func newTurn(m *protocol.ClientMessage) bool {
	switch m.Type {
	case protocol.TypeUserTurn, protocol.TypeUserObservation, protocol.TypeAudioTurnStart:
		return true
	}
	return false
}

// client applies the client message of step i.
func (c *traceState) client(i int, m *protocol.ClientMessage) error {
	if !c.strict && c.s.Started() && newTurn(m) && m.Turn <= c.lastTurn {
		return &protocol.Error{Code: protocol.CodeTurnOrder, Message: fmt.Sprintf("turn %d is not greater than the last turn %d", m.Turn, c.lastTurn)}
	}
	err := c.s.Client(m)
	if err != nil && !c.strict && pipelined(m, err) {
		// "Only one run is active" binds the agent's runs: a client may
		// send its next turn before the run ends; the agent answers it
		// with a run after this one, or a failure.
		c.tol.add(i, TolTurnDuringRun, "", fmt.Sprintf("turn %d sent while a run was active or awaited", m.Turn))
		err = nil
	}
	if err == nil && newTurn(m) {
		c.lastTurn = max(c.lastTurn, m.Turn)
	}
	return err
}

// pipelined reports whether err refuses m only because a run is active or
// awaited. An observation answering a request is never refused so, and an
// audio turn refused so would leave its turn unopened.
func pipelined(m *protocol.ClientMessage, err error) bool {
	codes := protocol.Codes(err)
	return len(codes) == 1 && codes[0] == protocol.CodeRunActive &&
		(m.Type == protocol.TypeUserTurn || (m.Type == protocol.TypeUserObservation && m.InteractionID == ""))
}

// server checks the server frame of step i and applies it. unknown names
// the members the contract does not define for its event type.
func (c *traceState) server(i int, frame []byte) (env *protocol.Envelope, unknown []string, err error) {
	env, err = protocol.ParseEnvelope(frame)
	if err != nil {
		return nil, nil, err
	}
	last := c.s.LastSequence()
	if err := c.s.Server(env); err != nil {
		return env, nil, err
	}
	typ := env.Event.Type
	unknown = unknownMembers(frame, typ)
	if c.strict {
		return env, unknown, nil
	}
	if !knownEvent(typ) {
		c.tol.add(i, TolUnknownEvent, typ, fmt.Sprintf("ignored event type %s", quote(typ)))
	}
	if len(unknown) > 0 {
		list := names(unknown)
		c.tol.add(i, TolUnknownField, typ+"\x00"+list, fmt.Sprintf("ignored %s members %s", typ, list))
	}
	if last > 0 && env.Sequence > last+1 {
		c.tol.add(i, TolSequenceGap, "", fmt.Sprintf("sequence %d after %d", env.Sequence, last))
	}
	return env, unknown, nil
}
