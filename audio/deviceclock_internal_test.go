package audio

import (
	"testing"
	"time"
)

// Buffers a device takes at once play one after another; a late one
// sets the clock anew, and so does a clock that ran too far ahead.
func TestDeviceClock(t *testing.T) {
	var c deviceClock
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	period := 960 // 20 ms
	for i, want := range []time.Time{ms(0), ms(20), ms(40)} {
		if got := c.at(ms(0), period); !got.Equal(want) {
			t.Errorf("buffer %d of a burst plays at %v; want %v", i, got.Sub(t0), want.Sub(t0))
		}
	}
	if got := c.at(ms(100), period); !got.Equal(ms(100)) {
		t.Errorf("after a stall, at %v; want the callback's time", got.Sub(t0))
	}
	for range 11 { // 220 ms taken at once: more than any buffer
		c.at(ms(120), period)
	}
	if got := c.at(ms(121), period); !got.Equal(ms(121)) {
		t.Errorf("a clock %v ahead was kept; want it set anew", got.Sub(ms(121)))
	}
}
