package client

import (
	"context"
	"time"

	"github.com/agentcall/acbridge/audio/wire"
)

// Microphone is what the WebRTC transport needs of a microphone: runs
// started and stopped per turn or engagement, and one queue of Opus
// packets read for the whole session. *audio.Mic implements it; the
// interface keeps cgo (libopus, miniaudio) out of this package, so that the
// conformance checker builds with CGO_ENABLED=0.
type Microphone interface {
	// Start opens the device and captures until Stop or the end of ctx.
	Start(ctx context.Context) error
	// Stop ends the run; the error says why it ended early, if it did.
	Stop() error
	// Running reports whether a run still captures.
	Running() bool
	// ReadPacket blocks for the next packet of any run.
	ReadPacket(ctx context.Context) (wire.Packet, error)
	// Drain returns once every queued packet has been read and the reader
	// waits again.
	Drain(ctx context.Context) error
	// Discard drops the queued packets and returns how many.
	Discard() int
}

// Sink takes the agent's voice as 48 kHz mono 16-bit PCM. Write may block
// while the sink is full (a speaker plays in real time). audio.Sink
// implementations (the speaker, a WAV writer) fit.
type Sink interface {
	Write(pcm []int16) error
}

// Decoder turns the agent's Opus payloads (RFC 7587) into 48 kHz mono
// PCM; it keeps state between packets, so each track gets its own.
// *audio.Decoder implements it.
type Decoder interface {
	Decode(payload []byte) ([]int16, error)
	// DecodeLost conceals a gap of d.
	DecodeLost(d time.Duration) ([]int16, error)
}

// FECDecoder is a Decoder that can also recover a lost frame from the
// in-band FEC copy the next packet carries (audio.Decoder can). The
// transport uses it when the Decoder has it.
type FECDecoder interface {
	Decoder
	// DecodeFEC returns the 20 ms frame lost just before payload.
	DecodeFEC(payload []byte) ([]int16, error)
}
