package wire

import (
	"fmt"
	"slices"
	"testing"
	"time"
)

// slots records what a Reorder released as "payload" or "payload lost=N"
// or "payload late".
type slots []string

func (s *slots) emit(sl Slot) {
	e := string(sl.Payload)
	if sl.Lost > 0 {
		e += fmt.Sprintf(" lost=%d", sl.Lost)
	}
	if sl.Late {
		e += " late"
	}
	*s = append(*s, e)
}

func (s *slots) take(t *testing.T, want ...string) {
	t.Helper()
	if !slices.Equal(*s, want) {
		t.Errorf("released %q; want %q", *s, want)
	}
	*s = nil
}

// A gap is held open for the hold: the packet resent into it plays in its
// place and counts as late; past the hold the gap is given up.
func TestReorderHoldsGap(t *testing.T) {
	var r Reorder
	r.SetHold(60 * time.Millisecond)
	var out slots
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }

	r.Push(65534, []byte("a"), ms(0), out.emit)
	out.take(t, "a")
	r.Push(0, []byte("c"), ms(20), out.emit) // 65535 missing, across the wrap
	out.take(t)
	if at, ok := r.Deadline(); !ok || !at.Equal(ms(80)) {
		t.Errorf("deadline %v %v; want %v", at, ok, ms(80))
	}
	r.Expire(ms(79), out.emit)
	out.take(t)
	if !r.Push(65535, []byte("b"), ms(50), out.emit) {
		t.Error("the resent packet was not fresh")
	}
	out.take(t, "b late", "c")
	if r.Push(65535, []byte("b"), ms(55), out.emit) {
		t.Error("a duplicate was fresh")
	}

	r.Push(3, []byte("f"), ms(60), out.emit) // 1 and 2 missing
	r.Push(5, []byte("h"), ms(100), out.emit)
	r.Expire(ms(120), out.emit)
	out.take(t, "f lost=2")
	r.Push(4, []byte("g"), ms(130), out.emit)
	out.take(t, "g late", "h")
	if r.Push(2, []byte("e"), ms(140), out.emit) {
		t.Error("a packet whose gap was given up was fresh")
	}
	out.take(t)
	if _, ok := r.Deadline(); ok {
		t.Error("a deadline without a gap")
	}
}

// Nothing waits without a hold, and the held packets are bounded: one far
// ahead gives every gap up.
func TestReorderBounds(t *testing.T) {
	var r Reorder
	var out slots
	now := time.Unix(1000, 0)
	r.Push(10, []byte("a"), now, out.emit)
	r.Push(12, []byte("c"), now, out.emit)
	out.take(t, "a", "c lost=1")

	r.SetHold(time.Hour)
	if r.Hold() != MaxHold {
		t.Errorf("hold %v; want the bound %v", r.Hold(), MaxHold)
	}
	r.Push(14, []byte("e"), now, out.emit)
	r.Push(16, []byte("g"), now, out.emit)
	out.take(t)
	r.Push(13+ReorderDepth, []byte("z"), now, out.emit)
	out.take(t, "e lost=1", "g lost=1", fmt.Sprintf("z lost=%d", ReorderDepth-4))
	r.Push(40, []byte("y"), now, out.emit)
	r.Flush(out.emit)
	out.take(t, fmt.Sprintf("y lost=%d", 40-14-ReorderDepth))
}
