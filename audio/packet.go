package audio

import "github.com/agentcall/acbridge/audio/wire"

// The audio format of the agentcall-webrtc-0.1 profile (see package wire,
// which holds them without cgo).
const (
	SampleRate    = wire.SampleRate
	Channels      = wire.Channels
	FrameDuration = wire.FrameDuration
	FrameSamples  = wire.FrameSamples
)

// Packet is one encoded Opus packet and the audio time it covers.
type Packet = wire.Packet

// Sink takes decoded PCM: 16-bit signed samples at SampleRate, mono.
// Write may block while the sink is full (a speaker plays in real time);
// Close releases the sink, unblocks a blocked Write and is safe to call
// twice. Write after Close returns ErrClosed.
type Sink interface {
	Write(pcm []int16) error
	Close() error
}
