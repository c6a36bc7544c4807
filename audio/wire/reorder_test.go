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
	if sl.AfterPause {
		e += " pause"
	}
	*s = append(*s, e)
}

// ts is the RTP timestamp of packet seq in a stream without pauses,
// continuous across the sequence numbers' wrap after 65535.
func ts(seq uint16) uint32 { return uint32(seq-65000) * uint32(FrameSamples) }

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

	r.Push(65534, ts(65534), []byte("a"), ms(0), out.emit)
	out.take(t, "a")
	r.Push(0, ts(0), []byte("c"), ms(20), out.emit) // 65535 missing, across the wrap
	out.take(t)
	if at, ok := r.Deadline(); !ok || !at.Equal(ms(80)) {
		t.Errorf("deadline %v %v; want %v", at, ok, ms(80))
	}
	r.Expire(ms(79), out.emit)
	out.take(t)
	if !r.Push(65535, ts(65535), []byte("b"), ms(50), out.emit) {
		t.Error("the resent packet was not fresh")
	}
	out.take(t, "b late", "c")
	if r.Push(65535, ts(65535), []byte("b"), ms(55), out.emit) {
		t.Error("a duplicate was fresh")
	}

	r.Push(3, ts(3), []byte("f"), ms(60), out.emit) // 1 and 2 missing
	r.Push(5, ts(5), []byte("h"), ms(100), out.emit)
	r.Expire(ms(120), out.emit)
	out.take(t, "f lost=2")
	r.Push(4, ts(4), []byte("g"), ms(130), out.emit)
	out.take(t, "g late", "h")
	if r.Push(2, ts(2), []byte("e"), ms(140), out.emit) {
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
	r.Push(10, ts(10), []byte("a"), now, out.emit)
	r.Push(12, ts(12), []byte("c"), now, out.emit)
	out.take(t, "a", "c lost=1")

	r.SetHold(time.Hour)
	if r.Hold() != MaxHold {
		t.Errorf("hold %v; want the bound %v", r.Hold(), MaxHold)
	}
	r.Push(14, ts(14), []byte("e"), now, out.emit)
	r.Push(16, ts(16), []byte("g"), now, out.emit)
	out.take(t)
	r.Push(13+ReorderDepth, ts(13+ReorderDepth), []byte("z"), now, out.emit)
	out.take(t, "e lost=1", "g lost=1", fmt.Sprintf("z lost=%d", ReorderDepth-4))
	r.Push(40, ts(40), []byte("y"), now, out.emit)
	r.Flush(out.emit)
	out.take(t, fmt.Sprintf("y lost=%d", 40-14-ReorderDepth))
}

// A resent packet that ended the talk before a pause is dropped: the
// talk after the pause does not start with it. One that starts the talk
// after the pause plays in its place. A gap given up across a pause is
// marked, so that it is not concealed with the sound before it.
func TestReorderAcrossAPause(t *testing.T) {
	pause := uint32(50 * FrameSamples) // one second of silence, unsent
	t0 := time.Unix(1000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	start := func() (*Reorder, *slots) {
		r := new(Reorder)
		r.SetHold(100 * time.Millisecond)
		out := new(slots)
		for seq := uint16(1); seq <= 3; seq++ {
			r.Push(seq, ts(seq), []byte{'a' + byte(seq)}, ms(int(seq)*20), out.emit)
		}
		out.take(t, "b", "c", "d")
		return r, out
	}

	// The first talk's last packet (4) is lost; the second talk starts at 5.
	r, out := start()
	r.Push(5, ts(5)+pause, []byte("F"), ms(1100), out.emit)
	out.take(t)
	if r.Push(4, ts(4), []byte("e"), ms(1130), out.emit) {
		t.Error("the first talk's resent last packet was fresh")
	}
	out.take(t, "F")
	r.Push(6, ts(6)+pause, []byte("G"), ms(1140), out.emit)
	out.take(t, "G")

	// The second talk's first packet (4) is lost, and resent.
	r, out = start()
	r.Push(5, ts(5)+pause, []byte("F"), ms(1100), out.emit)
	if !r.Push(4, ts(4)+pause, []byte("E"), ms(1130), out.emit) {
		t.Error("the second talk's resent first packet was not fresh")
	}
	out.take(t, "E late", "F")

	// Nothing is resent: the gap is given up across the pause.
	r, out = start()
	r.Push(5, ts(5)+pause, []byte("F"), ms(1100), out.emit)
	r.Expire(ms(1200), out.emit)
	out.take(t, "F lost=1 pause")
	r.Push(7, ts(7)+pause, []byte("H"), ms(1220), out.emit)
	r.Expire(ms(1320), out.emit)
	out.take(t, "H lost=1")

	// Packets of 40 ms: their span is learnt, so a gap inside a talk is
	// no pause.
	r, out = new(Reorder), new(slots)
	r.SetHold(100 * time.Millisecond)
	for seq := uint16(1); seq <= 3; seq++ {
		r.Push(seq, 2*ts(seq), []byte{'a' + byte(seq)}, ms(int(seq)*40), out.emit)
	}
	r.Push(5, 2*ts(5), []byte("f"), ms(200), out.emit)
	r.Expire(ms(300), out.emit)
	out.take(t, "b", "c", "d", "f lost=1")
}
