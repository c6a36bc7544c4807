package rtcpeer

import (
	"errors"
	"net"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio/wire"
	"github.com/pion/interceptor/pkg/stats"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// VoiceHold is how long a receiver holds a gap in the peer's voice open
// for the packet that NACK brings back: the round trip, plus three of the
// receiver's NACK intervals so that a lost request or resend is asked for
// again, at most wire.MaxHold.
func VoiceHold(rtt time.Duration) time.Duration {
	return min(wire.MaxHold, max(0, rtt)+3*NACKInterval)
}

// holdRefresh is how often a VoiceReader asks for the round trip again.
const holdRefresh = time.Second

// VoiceReader reads the peer's voice track and hands its packets to play
// in sequence order, holding a gap open for VoiceHold of the round trip
// (wire.Reorder) where the track was negotiated with NACK, so that a
// resent packet plays in its place.
type VoiceReader struct {
	arrived func(p *rtp.Packet, fresh bool)
	play    func(wire.Slot)
	rtt     func() time.Duration

	mu sync.Mutex
	ro wire.Reorder
}

// NewVoiceReader returns a reader that calls arrived for each packet read
// (fresh false for a duplicate or one whose place has passed: it does not
// play) and play for each packet in order. rtt, if not nil, is the round
// trip so far (0 while unknown); it is asked at most once a second. Both
// callbacks run with the reader's lock held: they must not call Flush.
func NewVoiceReader(arrived func(p *rtp.Packet, fresh bool), play func(wire.Slot), rtt func() time.Duration) *VoiceReader {
	return &VoiceReader{arrived: arrived, play: play, rtt: rtt}
}

// Run reads tr until it ends.
func (v *VoiceReader) Run(tr *webrtc.TrackRemote) {
	nacked := HasNACK(tr.Codec().RTCPFeedback)
	var asked time.Time
	for {
		v.mu.Lock()
		at, open := v.ro.Deadline()
		v.mu.Unlock()
		if !open {
			at = time.Time{} // no deadline
		}
		if err := tr.SetReadDeadline(at); err != nil {
			return
		}
		pkt, _, err := tr.ReadRTP()
		now := time.Now()
		var ne net.Error
		if err != nil && !(errors.As(err, &ne) && ne.Timeout()) {
			return
		}
		v.mu.Lock()
		if err != nil {
			v.ro.Expire(now, v.play)
			v.mu.Unlock()
			continue
		}
		if nacked && now.Sub(asked) >= holdRefresh {
			asked = now
			var rtt time.Duration
			if v.rtt != nil {
				rtt = v.rtt()
			}
			v.ro.SetHold(VoiceHold(rtt))
		}
		fresh := v.ro.Push(pkt.SequenceNumber, pkt.Timestamp, pkt.Payload, now, v.play)
		v.arrived(pkt, fresh)
		v.mu.Unlock()
	}
}

// Deadline is when the gap held open is given up; ok is false when none
// is.
func (v *VoiceReader) Deadline() (at time.Time, ok bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.ro.Deadline()
}

// Flush gives up every gap held open, playing what waits behind it: the
// end of a turn.
func (v *VoiceReader) Flush() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.ro.Flush(v.play)
}

// HasNACK reports whether a codec's negotiated feedback includes generic
// NACK (RFC 4585 "nack" without a parameter).
func HasNACK(fb []webrtc.RTCPFeedback) bool {
	for _, f := range fb {
		if f.Type == "nack" && f.Parameter == "" {
			return true
		}
	}
	return false
}

// Timing reads one connection's voice timing from pion's stats
// interceptor, which NewAPI registers for it (APIOptions.Timing). pion's
// GetStats reports its receivers only, so the round trip that the
// peer's receiver reports give the sender is read here. The zero value
// and a nil *Timing read 0 until the connection exists.
type Timing struct {
	mu  sync.Mutex
	get stats.Getter
}

func (t *Timing) set(g stats.Getter) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.get = g
}

// Voice returns the interarrival jitter of the peer's RTP (RFC 3550
// §6.4.1) and the round trip from the peer's receiver reports, 0 until the
// first, on pc's tracks.
func (t *Timing) Voice(pc *webrtc.PeerConnection) (jitter, rtt time.Duration) {
	if t == nil {
		return 0, 0
	}
	t.mu.Lock()
	get := t.get
	t.mu.Unlock()
	if get == nil {
		return 0, 0
	}
	for _, r := range pc.GetReceivers() {
		for _, tr := range r.Tracks() {
			if st := get.Get(uint32(tr.SSRC())); st != nil {
				jitter = time.Duration(st.InboundRTPStreamStats.Jitter * float64(time.Second))
			}
		}
	}
	for _, s := range pc.GetSenders() {
		for _, e := range s.GetParameters().Encodings {
			if st := get.Get(uint32(e.SSRC)); st != nil {
				rtt = st.RemoteInboundRTPStreamStats.RoundTripTime
			}
		}
	}
	return jitter, rtt
}
