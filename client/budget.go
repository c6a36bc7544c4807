package client

import (
	"context"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/internal/ratelimit"
	"github.com/agentcall/acbridge/protocol"
)

// Codes of the failures that end a session whose agent sends more than a
// kiosk can use. Each names the violation, so an operator reading the
// status line knows which bound the agent broke.
const (
	// CodeRunBudget: the agent went on past its run budget after
	// response.cancel.
	CodeRunBudget = "run.budget"
	// CodeRunUnsolicited: the agent started more runs that no turn asked
	// for than RunBudget.Unsolicited allows. The contract has the server
	// respond to a processed turn with run.started; runs nobody asked for
	// are what a looping agent sends.
	CodeRunUnsolicited = "run.unsolicited"
	// CodeSessionBudget: the agent sent more over all its runs than the
	// session budget (see RunBudget).
	CodeSessionBudget = "session.budget"
)

// RunBudget bounds what an agent may send: a flood of small events must not
// grow anything without end nor keep the kiosk busy.
//
// Each run, counted from run.started, may take Bytes and Events; past them
// the session sends response.cancel, and past twice them (the agent went
// on) session.end, closing with CodeRunBudget.
//
// The session as a whole, over all runs and whatever comes between them,
// has four runs' worth at once, refilled by one run's worth a minute: a
// person asks a few questions a minute, each answered in a few kilobytes,
// so no conversation comes near it, while an agent that loops runs no turn
// asked for is stopped however it splits them (CodeSessionBudget).
//
// Runs that nothing asked for are counted too (protocol.Session's
// UnsolicitedRuns): Unsolicited of them pass, refilled by one a minute, so
// a greeting, a reminder or an agent that answers twice keeps working; one
// more ends the session with CodeRunUnsolicited.
type RunBudget struct {
	Bytes  int // envelope bytes a run (default 1 MiB)
	Events int // envelopes a run (default 10,000)
	// Unsolicited runs allowed at once (default 3).
	Unsolicited int
}

// Default run budget; a spoken or typed answer is a few kilobytes.
const (
	DefaultRunBytes    = 1 << 20
	DefaultRunEvents   = 10000
	DefaultUnsolicited = 3
)

// sessionRuns is how many runs' worth the session budget holds at once.
const sessionRuns = 4

// budget counts one session's envelopes; only the read loop uses it.
type budget struct {
	max           RunBudget
	bytes, events int // this run's
	cancelled     bool

	sessBytes, sessEvents, unsolicited ratelimit.Bucket
}

func newBudget(b *RunBudget) budget {
	m := RunBudget{Bytes: DefaultRunBytes, Events: DefaultRunEvents, Unsolicited: DefaultUnsolicited}
	if b != nil {
		if b.Bytes > 0 {
			m.Bytes = b.Bytes
		}
		if b.Events > 0 {
			m.Events = b.Events
		}
		if b.Unsolicited > 0 {
			m.Unsolicited = b.Unsolicited
		}
	}
	perMinute := func(n int) float64 { return float64(n) / 60 }
	return budget{max: m,
		sessBytes:   ratelimit.New(sessionRuns*float64(m.Bytes), perMinute(m.Bytes)),
		sessEvents:  ratelimit.New(sessionRuns*float64(m.Events), perMinute(m.Events)),
		unsolicited: ratelimit.New(float64(m.Unsolicited), perMinute(1)),
	}
}

// count adds one envelope of size n bytes received at now; unsolicited says
// it started a run nothing asked for. It reports whether the run is to be
// cancelled now, or an error when the session is to end.
func (b *budget) count(now time.Time, typ string, n int, unsolicited bool) (cancel bool, err error) {
	if unsolicited && !b.unsolicited.Take(now) {
		return false, &protocol.Error{Code: CodeRunUnsolicited, Message: fmt.Sprintf(
			"the agent started more than %d runs that no turn asked for (the contract has it respond to a turn)", b.max.Unsolicited)}
	}
	if !b.sessBytes.TakeN(now, float64(n)) || !b.sessEvents.Take(now) {
		return false, &protocol.Error{Code: CodeSessionBudget, Message: fmt.Sprintf(
			"the agent sent more than %d bytes or %d events over its runs (%d of each a minute)", sessionRuns*b.max.Bytes, sessionRuns*b.max.Events, b.max.Bytes)}
	}
	if typ == protocol.EventRunStarted {
		b.bytes, b.events, b.cancelled = 0, 0, false
	}
	b.bytes += n
	b.events++
	if b.bytes <= b.max.Bytes && b.events <= b.max.Events {
		return false, nil
	}
	if b.bytes > 2*b.max.Bytes || b.events > 2*b.max.Events {
		return false, &protocol.Error{Code: CodeRunBudget, Message: fmt.Sprintf(
			"the agent went on past its run budget (%d bytes or %d events) after response.cancel", b.max.Bytes, b.max.Events)}
	}
	if b.cancelled {
		return false, nil
	}
	b.cancelled = true
	return true, nil
}

// overBudget acts on count's answer from the read loop: response.cancel
// once, or session.end before the session closes with the budget's error.
// Each send is bounded: a flooding agent may not read.
func (s *Session) overBudget(cancel bool, err error) error {
	ctx, stop := context.WithTimeout(context.Background(), time.Second)
	defer stop()
	if err != nil {
		s.log.Warn("agent session ended: the agent went past a budget", "code", protocol.Codes(err))
		_ = s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeSessionEnd})
		return err
	}
	if cancel {
		s.log.Warn("agent run over its budget; cancelling it", "bytes", s.budget.max.Bytes, "events", s.budget.max.Events)
		if err := s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeResponseCancel}); err != nil {
			return err
		}
	}
	return nil
}
