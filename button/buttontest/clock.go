package buttontest

import (
	"sort"
	"sync"
	"time"

	"github.com/agentcall/acbridge/button"
)

// Clock is a button.Clock whose time moves only when Advance is called.
// Timer callbacks run synchronously inside Advance, in deadline order, with
// Now at their deadline; so a test needs no sleeps and no extra goroutines.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	seq    int
	timers []*timer
}

type timer struct {
	c    *Clock
	when time.Time
	seq  int // keeps timers with equal deadlines in scheduling order
	f    func()
}

var _ button.Clock = (*Clock)(nil)

// NewClock returns a Clock reading start.
func NewClock(start time.Time) *Clock { return &Clock{now: start} }

// Now returns the fake time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc schedules f for Now()+d. A d of zero or less still waits for the
// next Advance, as a real timer never fires inside AfterFunc.
func (c *Clock) AfterFunc(d time.Duration, f func()) button.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	t := &timer{c: c, when: c.now.Add(d), seq: c.seq, f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop removes the timer; it reports false if the timer already fired or
// was stopped.
func (t *timer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for i, x := range t.c.timers {
		if x == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return true
		}
	}
	return false
}

// Advance moves time forward by d, firing every timer due by then,
// including timers that the callbacks schedule within the interval.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		sort.Slice(c.timers, func(i, j int) bool {
			a, b := c.timers[i], c.timers[j]
			if !a.when.Equal(b.when) {
				return a.when.Before(b.when)
			}
			return a.seq < b.seq
		})
		if len(c.timers) == 0 || c.timers[0].when.After(end) {
			c.now = end
			c.mu.Unlock()
			return
		}
		t := c.timers[0]
		c.timers = c.timers[1:]
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.f() // without c.mu: callbacks schedule and stop timers
	}
}

// Pending reports how many timers are scheduled.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
