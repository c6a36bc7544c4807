package audio

import (
	"testing"
	"time"
)

// The margin policy on an injected timeline: a stretch starts once the
// margin is queued or its first sample waited that long; running dry and
// resuming within underrunGap is an underrun that widens the margin by a
// frame up to the limit; a calm period narrows it again; a pause longer
// than underrunGap is a new stretch, not an underrun.
func TestPlayoutMargin(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	p := newPlayout(DefaultSpeakerBuffer)
	if p.target != playoutMin || p.limit != DefaultSpeakerBuffer/2 {
		t.Fatalf("start: margin %v limit %v", p.target, p.limit)
	}
	if p.written(at(0), true) {
		t.Fatal("the first stretch counted as an underrun")
	}
	if p.ready(at(0), FrameDuration) {
		t.Fatal("started with one frame queued; the margin is two")
	}
	if !p.ready(at(0), 2*FrameDuration) {
		t.Fatal("did not start with the margin queued")
	}
	// A stretch shorter than the margin plays once it has waited that long.
	p.ranDry(at(time.Second))
	p.written(at(2*time.Second), true)
	if p.ready(at(2*time.Second+30*time.Millisecond), FrameDuration) {
		t.Fatal("a short stretch started before waiting the margin")
	}
	if !p.ready(at(2*time.Second+40*time.Millisecond), FrameDuration) {
		t.Fatal("a short stretch did not start after waiting the margin")
	}
	// Underruns widen the margin, one frame each, up to the limit.
	now := at(3 * time.Second)
	for i := 1; i <= 10; i++ {
		p.ranDry(now)
		now = now.Add(60 * time.Millisecond)
		if !p.written(now, true) {
			t.Fatalf("resuming 60 ms after running dry was not an underrun (%d)", i)
		}
		p.ready(now, p.target)
		if want := min(playoutMin+time.Duration(i)*playoutStep, p.limit); p.target != want {
			t.Fatalf("after %d underruns the margin is %v, want %v", i, p.target, want)
		}
	}
	// A pause beyond underrunGap is the next reply, not an underrun.
	p.ranDry(now)
	now = now.Add(underrunGap)
	if p.written(now, true) {
		t.Fatal("a new reply after a pause counted as an underrun")
	}
	// Calm narrows it, a frame per playoutCalm.
	wide := p.target
	now = now.Add(playoutCalm)
	p.written(now, true)
	if p.target != wide-playoutStep {
		t.Fatalf("after %v calm the margin is %v, want %v", playoutCalm, p.target, wide-playoutStep)
	}
}

// Underrun log lines: the first at once, then at most one per
// underrunLogEvery carrying the count since the last.
func TestPlayoutLogRateLimited(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var p playout
	if n := p.logDue(t0); n != 1 {
		t.Fatalf("first underrun: log %d", n)
	}
	for i := 1; i <= 5; i++ {
		if n := p.logDue(t0.Add(time.Duration(i) * time.Second)); n != 0 {
			t.Fatalf("underrun %d s later logged (%d)", i, n)
		}
	}
	if n := p.logDue(t0.Add(underrunLogEvery)); n != 6 {
		t.Fatalf("after %v: log %d underruns, want 6", underrunLogEvery, n)
	}
}
