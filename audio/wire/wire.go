// Package wire holds the audio format of the agentcall-webrtc-0.1 profile
// (spec "Transports": one Opus track, 48 kHz, mono) and the packet type
// that crosses from a microphone to a transport. It has no cgo, so that
// the protocol side (package client, the conformance checker) can name
// them without linking libopus or miniaudio; package audio re-exports
// them.
package wire

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
