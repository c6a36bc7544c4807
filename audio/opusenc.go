package audio

import (
	"errors"
	"fmt"
	"sync"

	hopus "github.com/hraban/opus"
	"github.com/pion/mediadevices/pkg/codec"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/wave"
)

// LossHint is the packet loss the encoder is told to expect (percent):
// with in-band FEC on, libopus then puts a low-bitrate copy of each
// frame's speech into the next packet (LBRR), so that a receiver that
// lost one packet decodes it from the following one instead of guessing.
// 10 % is the loss of the hotel and hospital Wi-Fi kiosks sit on; the
// copy costs a few kbit/s of the bitrate. mediadevices' Opus encoder sets
// neither FEC nor the hint, hence this encoder over libopus directly
// (github.com/hraban/opus, already the decoder's binding).
const LossHint = 10

// maxOpusPacket bounds one encoded 20 ms packet (far above 510 kbit/s'
// 1,275 bytes).
const maxOpusPacket = 4000

// fecEncoder is a codec.ReadCloser: 20 ms mono frames from src encoded by
// libopus for VoIP with in-band FEC, LossHint and DTX.
//
// With DTX, libopus encodes a frame of silence it need not send (past
// its hangover: 200 ms of digital silence, longer for noise; apart from
// a comfort-noise update every 400 ms) as a packet of 1 or 2 bytes. Those
// packets are sent as they are, not omitted as RFC 7587 would allow:
// every receiver here (wire.Reorder, the kiosk's and the agent's
// counters, NACK) tells loss by a gap in RTP sequence numbers, and the
// decoder turns a tiny packet into the comfort noise of the silence. An
// omitted packet would read as lost, be asked for again and concealed,
// unless every receiver told a DTX gap from a loss by the RTP timestamp.
// A silence's payload drops to about 1 kbit/s (8.4 for digital silence,
// 25 for a quiet room's noise without DTX); its packets, and their
// headers, still go.
type fecEncoder struct {
	src mdaudio.Reader
	mu  sync.Mutex
	enc *hopus.Encoder // nil once closed
	pcm [FrameSamples]int16
	out [maxOpusPacket]byte
}

var _ codec.ReadCloser = (*fecEncoder)(nil)

func newFECEncoder(mono mdaudio.Reader, es encoderSettings) (*fecEncoder, error) {
	enc, err := hopus.NewEncoder(SampleRate, Channels, hopus.AppVoIP)
	if err != nil {
		return nil, err
	}
	for _, set := range []func() error{
		func() error { return enc.SetBitrate(es.bitrate) },
		func() error { return enc.SetInBandFEC(es.fec) },
		func() error { return enc.SetPacketLossPerc(LossHint) },
		func() error { return enc.SetDTX(es.dtx) },
	} {
		if err := set(); err != nil {
			return nil, err
		}
	}
	return &fecEncoder{src: mdaudio.NewBuffer(FrameSamples)(mono), enc: enc}, nil
}

// errClosedEncoder is Read's error after Close.
var errClosedEncoder = errors.New("audio: opus encoder closed")

func (e *fecEncoder) Read() ([]byte, func(), error) {
	chunk, release, err := e.src.Read()
	if err != nil {
		return nil, func() {}, err
	}
	defer release()
	if n := chunk.ChunkInfo().Len; n != FrameSamples || chunk.ChunkInfo().Channels != Channels {
		return nil, func() {}, fmt.Errorf("audio: opus encoder got %d samples × %d channels, want %d × 1", n, chunk.ChunkInfo().Channels, FrameSamples)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.enc == nil {
		return nil, func() {}, errClosedEncoder
	}
	switch c := chunk.(type) {
	case *wave.Int16Interleaved:
		copy(e.pcm[:], c.Data)
	case *wave.Float32Interleaved:
		// Not wave's own conversion: it maps float 1.0 to twice int16's
		// full scale.
		for i, f := range c.Data {
			e.pcm[i] = int16(max(-1, min(f, 1)) * 32767)
		}
	default:
		for i := range e.pcm {
			e.pcm[i] = int16(wave.Int16SampleFormat.Convert(chunk.At(i, 0)).(wave.Int16Sample))
		}
	}
	n, err := e.enc.Encode(e.pcm[:], e.out[:])
	if err != nil {
		return nil, func() {}, fmt.Errorf("audio: opus encode: %w", err)
	}
	return append([]byte(nil), e.out[:n]...), func() {}, nil
}

func (e *fecEncoder) Controller() codec.EncoderController { return nil }

func (e *fecEncoder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.enc = nil // the binding keeps libopus' state in Go memory: the GC frees it
	return nil
}
