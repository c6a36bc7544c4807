package wire

import "time"

// ReorderDepth bounds the packets a Reorder holds: 320 ms of 20 ms frames,
// more than MaxHold lets accumulate behind a gap.
const ReorderDepth = 16

// MaxHold bounds how long a Reorder holds a gap open: a retransmission
// later than that costs the listener more than the concealed frame would.
const MaxHold = 120 * time.Millisecond

// Slot is one packet in sequence order, as a Reorder releases it.
type Slot struct {
	Payload []byte
	// Lost packets were given up just before this one: the decoder
	// conceals them, from this payload's FEC copy where it has one.
	Lost int
	// Late: the packet arrived after a later one, while its gap was held
	// open; a packet sent again after a NACK arrives so (as does one the
	// network reordered).
	Late bool
	// AfterPause: the stream paused before this packet (its timestamp
	// jumps past the lost packets' span), so the lost packets may be the
	// end of the talk before the pause. Concealing them would play that
	// talk's last sound again at this one's start: they are counted, not
	// concealed.
	AfterPause bool
}

// Reorder puts a stream's RTP packets back in sequence order and holds a
// gap open for a while, so that a packet sent again after a NACK still
// plays in its place. Past the hold the gap is given up and the packets
// after it go on. The hold applies only while a gap is open: in-order
// packets pass at once. With a hold of 0 nothing waits, as without NACK.
// At most ReorderDepth packets wait; a packet further ahead gives up every
// gap before it. A resent packet whose RTP timestamp shows that it ended
// the talk before a pause is dropped, not played at the start of the talk
// after it. Not safe for concurrent use. Written here because pion's
// jitterbuffer waits for a fixed number of packets before the first one
// plays and never gives a gap up by time.
type Reorder struct {
	hold    time.Duration
	next    uint16 // the sequence number that plays next
	started bool
	held    [ReorderDepth]heldPacket
	n       int // packets held
	// The last packet released (played or dropped as stale), and the
	// timestamp span of one packet, learnt from consecutive packets.
	last    bool
	lastSeq uint16
	lastTS  uint32
	learnt  uint32
}

type heldPacket struct {
	ok      bool
	seq     uint16
	ts      uint32
	payload []byte
	at      time.Time // arrival
}

// The timestamp span of one packet: a 20 ms frame at Opus's 48 kHz RTP
// clock, the profile's packet, until consecutive packets show another
// of at most 120 ms, Opus's longest.
const (
	defaultStep = uint32(FrameSamples)
	maxStep     = uint32(SampleRate * 120 / 1000)
)

// paused reports whether the stream paused between a packet at (seqA,
// tsA) and a later one at (seqB, tsB): the timestamps advance by more
// than the packets between them span, by over half a packet.
func (r *Reorder) paused(seqA uint16, tsA uint32, seqB uint16, tsB uint32) bool {
	step := r.learnt
	if step == 0 {
		step = defaultStep
	}
	d := tsB - tsA
	return d < 1<<31 && d > uint32(seqB-seqA)*step+step/2
}

// afterPause reports whether the packet at (seq, ts), the next released,
// comes after a pause since the last one released.
func (r *Reorder) afterPause(seq uint16, ts uint32) bool {
	return r.last && r.paused(r.lastSeq, r.lastTS, seq, ts)
}

// released notes the packet at (seq, ts) leaving the Reorder.
func (r *Reorder) released(seq uint16, ts uint32) {
	if r.last && seq == r.lastSeq+1 {
		if d := ts - r.lastTS; d > 0 && d <= maxStep {
			r.learnt = d
		}
	}
	r.last, r.lastSeq, r.lastTS = true, seq, ts
}

// stale reports whether the packet at (seq, ts), which fills the gap at
// next, ends the talk before a pause: the first packet held after it
// comes after a pause. The listener heard that talk end when the gap
// opened; playing this now would put its last sound before the next.
func (r *Reorder) stale(seq uint16, ts uint32) bool {
	for i := uint16(1); i < ReorderDepth; i++ {
		if h := &r.held[(seq+i)%ReorderDepth]; h.ok && h.seq == seq+i {
			return r.paused(seq, ts, h.seq, h.ts)
		}
	}
	return false
}

// SetHold sets how long a gap is held open, at most MaxHold.
func (r *Reorder) SetHold(d time.Duration) { r.hold = max(0, min(d, MaxHold)) }

// Hold is how long a gap is held open.
func (r *Reorder) Hold() time.Duration { return r.hold }

// Push takes a packet (its RTP sequence number and timestamp) that
// arrived at now and releases to emit, in order, every packet that can
// play. fresh is false for a duplicate, a packet whose place has passed
// (played or given up) or one that ended the talk before a pause: it is
// dropped.
func (r *Reorder) Push(seq uint16, ts uint32, payload []byte, now time.Time, emit func(Slot)) (fresh bool) {
	if !r.started {
		r.started, r.next = true, seq
	}
	d := seq - r.next
	switch {
	case d >= 0x8000:
		return false
	case d == 0:
		late := r.n > 0
		r.next++
		if late && r.stale(seq, ts) {
			r.released(seq, ts)
			r.release(emit)
			fresh = false
			break
		}
		r.released(seq, ts)
		emit(Slot{Payload: payload, Late: late})
		r.release(emit)
		fresh = true
	case d >= ReorderDepth:
		r.Flush(emit)
		lost := int(seq - r.next)
		r.next = seq + 1
		pause := r.afterPause(seq, ts)
		r.released(seq, ts)
		emit(Slot{Payload: payload, Lost: lost, AfterPause: pause})
		fresh = true
	default:
		h := &r.held[seq%ReorderDepth]
		if h.ok {
			return false // the same seq: the slot's only occupant is at d < ReorderDepth
		}
		*h = heldPacket{ok: true, seq: seq, ts: ts, payload: payload, at: now}
		r.n++
		fresh = true
	}
	if r.hold == 0 {
		r.Flush(emit)
	}
	return fresh
}

// Deadline is when the open gap is given up; ok is false when no gap is
// open.
func (r *Reorder) Deadline() (at time.Time, ok bool) {
	for _, h := range r.held {
		if h.ok && (!ok || h.at.Before(at)) {
			at, ok = h.at, true
		}
	}
	return at.Add(r.hold), ok
}

// Expire gives up every gap held open for the hold by now.
func (r *Reorder) Expire(now time.Time, emit func(Slot)) {
	for {
		at, ok := r.Deadline()
		if !ok || at.After(now) {
			return
		}
		r.giveUp(emit)
	}
}

// Flush gives up every open gap, releasing what is held.
func (r *Reorder) Flush(emit func(Slot)) {
	for r.n > 0 {
		r.giveUp(emit)
	}
}

// giveUp releases the first held packet after the gap at next, and those
// that follow it without a gap.
func (r *Reorder) giveUp(emit func(Slot)) {
	for i := uint16(1); i < ReorderDepth; i++ {
		h := &r.held[(r.next+i)%ReorderDepth]
		if h.ok && h.seq == r.next+i {
			p, seq, ts := h.payload, h.seq, h.ts
			*h = heldPacket{}
			r.n--
			r.next += i + 1
			pause := r.afterPause(seq, ts)
			r.released(seq, ts)
			emit(Slot{Payload: p, Lost: int(i), AfterPause: pause})
			r.release(emit)
			return
		}
	}
}

// release plays the held packets that continue the sequence at next.
func (r *Reorder) release(emit func(Slot)) {
	for r.n > 0 {
		h := &r.held[r.next%ReorderDepth]
		if !h.ok || h.seq != r.next {
			return
		}
		p := h.payload
		r.released(h.seq, h.ts)
		*h = heldPacket{}
		r.n--
		r.next++
		emit(Slot{Payload: p})
	}
}
