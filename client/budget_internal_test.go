package client

import (
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// The session budget is over all runs, not reset by run.started: runs that
// each stay within the run budget still end the session once together they
// pass four runs' worth, and a minute refills one run's worth.
func TestSessionBudgetOverAllRuns(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBudget(&RunBudget{Bytes: 1000, Events: 1 << 20})
	run := func() error {
		for _, typ := range []string{protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted} {
			if cancel, err := b.count(now, typ, 100, false); err != nil || cancel {
				return errors.Join(err, errors.New("cancelled"))
			}
		}
		return nil
	}
	for i := range 13 { // 13 runs of 300 bytes: 3,900 of 4,000
		if err := run(); err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
	}
	if err := run(); !errors.Is(err, &protocol.Error{Code: CodeSessionBudget}) {
		t.Fatalf("the 14th run: %v, want %s", err, CodeSessionBudget)
	}
	now = now.Add(time.Minute) // 1,000 bytes back
	for i := range 3 {
		if err := run(); err != nil {
			t.Fatalf("run %d after a minute: %v", i+1, err)
		}
	}
}

// Unsolicited runs: three pass, the fourth ends the session; a minute later
// one more passes. Solicited runs never draw on it.
func TestUnsolicitedRunBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	b := newBudget(nil)
	start := func(unsolicited bool) error {
		_, err := b.count(now, protocol.EventRunStarted, 30, unsolicited)
		return err
	}
	for i := range 100 {
		if err := start(false); err != nil {
			t.Fatalf("solicited run %d: %v", i+1, err)
		}
	}
	for i := range DefaultUnsolicited {
		if err := start(true); err != nil {
			t.Fatalf("unsolicited run %d: %v", i+1, err)
		}
	}
	if err := start(true); !errors.Is(err, &protocol.Error{Code: CodeRunUnsolicited}) {
		t.Fatalf("one unsolicited run too many: %v, want %s", err, CodeRunUnsolicited)
	}
	now = now.Add(time.Minute)
	if err := start(true); err != nil {
		t.Fatalf("a minute later: %v", err)
	}
	if err := start(true); err == nil {
		t.Fatal("two a minute passed")
	}
}
