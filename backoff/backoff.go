// Package backoff computes jittered exponential delays for reconnecting to
// an agent or a device service. Delays start at Min, double per failure up
// to Max, and are drawn uniformly from [d/2, d] ("equal jitter") so that a
// fleet of kiosks restarted together does not reconnect in lockstep.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Backoff is the state of one retry loop. The zero value is not usable; use
// New. Not safe for concurrent use: one loop owns it.
type Backoff struct {
	min, max time.Duration
	n        int
	rnd      func() float64
	after    func(time.Duration) <-chan time.Time
}

// Options configures New; nil means Min 1 s, Max 60 s, the real clock.
type Options struct {
	Min, Max time.Duration
	// After is the clock (default time.After); tests pass a fake.
	After func(time.Duration) <-chan time.Time
	// Rand returns a float in [0,1) (default math/rand/v2).
	Rand func() float64
}

// New returns a Backoff.
func New(o *Options) *Backoff {
	b := &Backoff{min: time.Second, max: 60 * time.Second, rnd: rand.Float64, after: time.After}
	if o != nil {
		if o.Min > 0 {
			b.min = o.Min
		}
		if o.Max > 0 {
			b.max = o.Max
		}
		if o.After != nil {
			b.after = o.After
		}
		if o.Rand != nil {
			b.rnd = o.Rand
		}
	}
	if b.max < b.min {
		b.max = b.min
	}
	return b
}

// Next returns the delay before the next attempt and counts a failure.
func (b *Backoff) Next() time.Duration {
	d := b.min
	for i := 0; i < b.n && d < b.max; i++ {
		d *= 2
	}
	if d > b.max {
		d = b.max
	}
	b.n++
	return b.jitter(d)
}

// NextMax counts a failure and returns a delay drawn at Max, as Next does
// once the delays have grown there: for a failure no retry can fix, where
// quick retries would only look like progress.
func (b *Backoff) NextMax() time.Duration {
	b.n++
	return b.jitter(b.max)
}

func (b *Backoff) jitter(d time.Duration) time.Duration {
	half := d / 2
	return half + time.Duration(b.rnd()*float64(d-half))
}

// Reset starts over after a success.
func (b *Backoff) Reset() { b.n = 0 }

// Failures is the number of failures since the last Reset.
func (b *Backoff) Failures() int { return b.n }

// Wait sleeps for Next() or until ctx is done, returning ctx's error then.
func (b *Backoff) Wait(ctx context.Context) error {
	select {
	case <-b.after(b.Next()):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
