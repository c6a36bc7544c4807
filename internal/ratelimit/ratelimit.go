// Package ratelimit is the token bucket behind every budget a peer or a
// flood must not exceed (WebSocket pings, the daemon's log lines).
package ratelimit

import "time"

// Bucket holds up to Burst tokens and refills at Rate a second; it starts
// full. It is not safe for concurrent use: its owner holds a lock around
// it, usually with other state.
type Bucket struct {
	burst, rate float64
	tokens      float64
	last        time.Time
}

// New returns a full bucket; burst and rate must be positive.
func New(burst, rate float64) Bucket {
	return Bucket{burst: burst, rate: rate, tokens: burst}
}

// Take takes one token at time now and reports whether there was one.
func (b *Bucket) Take(now time.Time) bool { return b.TakeN(now, 1) }

// TakeN takes n tokens at time now, all or none, and reports whether there
// were n: a budget of bytes takes a message's size at once.
func (b *Bucket) TakeN(now time.Time, n float64) bool {
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}
