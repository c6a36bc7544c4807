package backoff

import (
	"context"
	"testing"
	"time"
)

func TestDelaysDoubleUpToMaxWithJitter(t *testing.T) {
	for _, r := range []float64{0, 0.999999} {
		b := New(&Options{Min: time.Second, Max: 10 * time.Second, Rand: func() float64 { return r }})
		var got []time.Duration
		for i := 0; i < 6; i++ {
			got = append(got, b.Next().Round(time.Millisecond))
		}
		want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second}
		for i := range want {
			lo := want[i] / 2
			if got[i] < lo || got[i] > want[i] {
				t.Errorf("rand %v: delay %d = %v, want within [%v, %v]", r, i, got[i], lo, want[i])
			}
		}
		b.Reset()
		if d := b.Next(); d > time.Second {
			t.Errorf("after Reset: %v", d)
		}
	}
}

func TestWaitHonoursContext(t *testing.T) {
	never := func(time.Duration) <-chan time.Time { return nil }
	b := New(&Options{After: never})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Wait(ctx); err != context.Canceled {
		t.Fatalf("Wait: %v", err)
	}
	fired := make(chan time.Time, 1)
	fired <- time.Now()
	b = New(&Options{After: func(time.Duration) <-chan time.Time { return fired }})
	if err := b.Wait(context.Background()); err != nil || b.Failures() != 1 {
		t.Fatalf("Wait: %v, failures %d", err, b.Failures())
	}
}

func TestNextMaxIsDrawnAtTheCeiling(t *testing.T) {
	for _, r := range []float64{0, 0.999999} {
		b := New(&Options{Min: time.Second, Max: 60 * time.Second, Rand: func() float64 { return r }})
		if d := b.NextMax(); d < 30*time.Second || d > 60*time.Second {
			t.Errorf("rand %v: NextMax = %v, want within [30s, 60s]", r, d)
		}
		if b.Failures() != 1 {
			t.Errorf("NextMax counted %d failures", b.Failures())
		}
	}
}
