package poll

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestUntil(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		n := 0
		if !Until(time.Second, 10*time.Millisecond, func() bool { n++; return n == 5 }) {
			t.Fatal("the condition that became true was not seen")
		}
		if d := time.Since(start); d != 40*time.Millisecond {
			t.Fatalf("true at the fifth call after %v, want 40ms", d)
		}
		start = time.Now()
		if Until(time.Second, 10*time.Millisecond, func() bool { return false }) {
			t.Fatal("a condition never true was reported true")
		}
		if d := time.Since(start); d != time.Second {
			t.Fatalf("gave up after %v, want the 1s timeout", d)
		}
	})
}
