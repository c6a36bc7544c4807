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

func TestParked(t *testing.T) {
	release := make(chan struct{})
	done := make(chan struct{})
	go func() { parkHere(release); close(done) }()
	if !Parked(5*time.Second, "poll.parkHere") {
		t.Fatal("the goroutine blocked on a channel was not seen parked")
	}
	close(release)
	<-done
	if Parked(50*time.Millisecond, "poll.parkHere") {
		t.Fatal("a goroutine that returned was seen parked")
	}
}

func parkHere(c chan struct{}) { <-c }
