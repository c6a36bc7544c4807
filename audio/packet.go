package audio

import "time"

// The audio format of the agentcall-webrtc-0.1 profile: Opus at 48 kHz,
// mono, in 20 ms frames (the usual WebRTC speech framing).
const (
	SampleRate    = 48000
	Channels      = 1
	FrameDuration = 20 * time.Millisecond
	FrameSamples  = int(SampleRate * FrameDuration / time.Second) // 960; typed so it also fits a 32-bit int
)

// Packet is one encoded Opus packet and the audio time it covers. The
// WebRTC transport writes it as media.Sample{Data: p.Data, Duration:
// p.Duration}; pacing by Duration is the track's job.
type Packet struct {
	Data     []byte
	Duration time.Duration
}

// Sink takes decoded PCM: 16-bit signed samples at SampleRate, mono.
// Write may block while the sink is full (a speaker plays in real time);
// Close releases the sink, unblocks a blocked Write and is safe to call
// twice. Write after Close returns ErrClosed.
type Sink interface {
	Write(pcm []int16) error
	Close() error
}
