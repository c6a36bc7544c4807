package client

import (
	"context"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// CodeRunBudget names the failure that ends a session whose agent went on
// past its run budget after response.cancel.
const CodeRunBudget = "run.budget"

// RunBudget bounds what an agent may send in one run, counted from
// run.started: a flood of small events must not grow anything without end
// nor keep the kiosk busy. Past the budget the session sends
// response.cancel; past twice the budget (the agent went on) it sends
// session.end and closes with CodeRunBudget.
type RunBudget struct {
	Bytes  int // envelope bytes (default 1 MiB)
	Events int // envelopes (default 10,000)
}

// Default run budget; a spoken or typed answer is a few kilobytes.
const (
	DefaultRunBytes  = 1 << 20
	DefaultRunEvents = 10000
)

// budget counts one session's runs; only the read loop uses it.
type budget struct {
	max           RunBudget
	bytes, events int
	cancelled     bool
}

func newBudget(b *RunBudget) budget {
	m := RunBudget{Bytes: DefaultRunBytes, Events: DefaultRunEvents}
	if b != nil {
		if b.Bytes > 0 {
			m.Bytes = b.Bytes
		}
		if b.Events > 0 {
			m.Events = b.Events
		}
	}
	return budget{max: m}
}

// count adds one envelope of size n bytes; it reports whether the run is to
// be cancelled now, or an error when the session is to end.
func (b *budget) count(typ string, n int) (cancel bool, err error) {
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
		s.log.Warn("agent session ended: run budget exceeded after response.cancel", "code", CodeRunBudget)
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
