package rtcpeer

import (
	"errors"
	"sync"
	"time"

	"github.com/pion/rtp"
	"github.com/pion/rtp/codecs"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// silenceMin is the pause in writing that VoiceTrack takes for silence
// rather than a late packet.
const silenceMin = 200 * time.Millisecond

// voiceMTU is pion's outbound RTP size (TrackLocalStaticSample's); an
// Opus packet is never split.
const voiceMTU = 1200

// VoiceTrack is a side's Opus track whose RTP timestamps follow the clock
// across the silences between turns and replies, as RFC 3550 §5.1 asks of
// a sender that stops sending in silence. pion's TrackLocalStaticSample
// advances them only by the audio written, so the receiver's jitter
// (RFC 3550 §6.4.1) counted each silence as a packet that late: 37 ms of
// jitter on a link that had none.
type VoiceTrack struct {
	*webrtc.TrackLocalStaticRTP

	mu  sync.Mutex
	pz  rtp.Packetizer
	end time.Time // when the audio written so far ends, in real time
}

// NewVoiceTrack returns the profile's Opus track (OpusCodec).
func NewVoiceTrack(id, streamID string) (*VoiceTrack, error) {
	tr, err := webrtc.NewTrackLocalStaticRTP(OpusCodec, id, streamID)
	if err != nil {
		return nil, err
	}
	// SSRC and payload type are the binding's: TrackLocalStaticRTP sets
	// them on each packet.
	pz := rtp.NewPacketizer(voiceMTU, 0, 0, &codecs.OpusPayloader{}, rtp.NewRandomSequencer(), OpusCodec.ClockRate)
	return &VoiceTrack{TrackLocalStaticRTP: tr, pz: pz}, nil
}

// WriteSample sends one Opus packet of s.Duration. After a pause of
// silenceMin or more the timestamp first skips the pause.
func (v *VoiceTrack) WriteSample(s media.Sample) error {
	now := time.Now()
	v.mu.Lock()
	if !v.end.IsZero() {
		if idle := now.Sub(v.end); idle >= silenceMin {
			v.pz.SkipSamples(ticks(idle))
			v.end = now
		}
	} else {
		v.end = now
	}
	v.end = v.end.Add(s.Duration)
	pkts := v.pz.Packetize(s.Data, ticks(s.Duration))
	v.mu.Unlock()
	var errs []error
	for _, p := range pkts {
		errs = append(errs, v.WriteRTP(p))
	}
	return errors.Join(errs...)
}

// ticks is d in RTP timestamp units of OpusCodec.
func ticks(d time.Duration) uint32 {
	return uint32(d * time.Duration(OpusCodec.ClockRate) / time.Second)
}
