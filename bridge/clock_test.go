package bridge_test

import (
	"sync/atomic"
	"testing"
	"time"
)

// testClock is the real clock moved on by what a test advances: a scenario
// of seconds (a held TALK, an idle engagement) runs at once, while real
// connections, microphones and agents keep their own time.
type testClock struct{ ahead atomic.Int64 }

func (c *testClock) Now() time.Time { return time.Now().Add(time.Duration(c.ahead.Load())) }

func (c *testClock) Advance(d time.Duration) { c.ahead.Add(int64(d)) }

// idleTick runs the engagement's idle check once, at the test clock's time
// now (the check judges the tick's time). The send returns when
// the session takes the tick; a second idleTick returns only after the
// first check is done (the session runs one thing at a time), which is
// how a test knows that a check ended nothing. The bound only ends a test
// whose engagement never opened: on a loaded machine under -race the
// session may take seconds to come back to its loop.
func (r *rig) idleTick(t *testing.T) {
	t.Helper()
	select {
	case r.ticks <- r.clock.Now():
	case <-time.After(30 * time.Second):
		t.Fatalf("the bridge ran no idle check: no engagement open; the person saw:\n%s", r.out.String())
	}
}
