package audio

import (
	"fmt"
	"io"
	"sync"

	"github.com/pion/mediadevices/pkg/codec"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/wave"
	"github.com/pion/mediadevices/pkg/wave/mixer"
)

// DefaultBitrate suits speech: Opus is transparent for a single voice
// well below this, and it keeps a minute of audio near 240 KB.
const DefaultBitrate = 32000

// EncoderOptions shape Opus encoding. The zero value means defaults.
type EncoderOptions struct {
	Bitrate int // bits per second, 6000..510000; 0 means DefaultBitrate
	// NoFEC turns in-band FEC off (default on, with LossHint): only to
	// measure what FEC recovers on a lossy link.
	NoFEC bool
	// NoDTX turns discontinuous transmission off (default on): only to
	// measure what DTX saves in silence.
	NoDTX bool
}

// encoderSettings are EncoderOptions with the defaults applied.
type encoderSettings struct {
	bitrate int
	fec     bool
	dtx     bool
}

func (o *EncoderOptions) settings() (encoderSettings, error) {
	if o == nil {
		return encoderSettings{bitrate: DefaultBitrate, fec: true, dtx: true}, nil
	}
	s := encoderSettings{bitrate: o.Bitrate, fec: !o.NoFEC, dtx: !o.NoDTX}
	if s.bitrate == 0 {
		s.bitrate = DefaultBitrate
	}
	if s.bitrate < 6000 || s.bitrate > 510000 {
		return s, fmt.Errorf("%w: Opus bitrate %d outside 6000..510000", ErrBadConfig, o.Bitrate)
	}
	return s, nil
}

// newOpusEncoder builds the Opus encoder (fecEncoder) over r, down-mixed
// to mono first: the profile wants one channel. Audio at another rate than SampleRate
// is then resampled (resample.go), after the down-mix so that only one
// channel goes through the filter; onRate, if set, is told the rate r
// delivers. A Processor, if given, cleans the 48 kHz mono audio before
// encoding.
func newOpusEncoder(r mdaudio.Reader, es encoderSettings, p *Processor, onRate func(int)) (codec.ReadCloser, error) {
	rs := newResampleReader(mdaudio.NewChannelMixer(Channels, &mixer.MonoMixer{})(r), onRate)
	var mono mdaudio.Reader = rs
	if p != nil {
		mono = newProcessReader(mono, p)
	}
	enc, err := newFECEncoder(mono, es)
	if err != nil {
		rs.close()
		return nil, fmt.Errorf("audio: opus encoder: %w", err)
	}
	return &resamplingEncoder{ReadCloser: enc, rs: rs}, nil
}

// resamplingEncoder frees the resampler with the encoder that reads it.
type resamplingEncoder struct {
	codec.ReadCloser
	rs *resampleReader
}

func (e *resamplingEncoder) Close() error {
	err := e.ReadCloser.Close()
	e.rs.close()
	return err
}

// Encoder encodes PCM frames the caller already has (the reference agent's
// generated replies) with the same mediadevices codec the microphone uses.
// It is safe for use by one goroutine at a time.
type Encoder struct {
	mu     sync.Mutex
	enc    codec.ReadCloser
	next   []int16 // the frame the pull-based mediadevices encoder reads next
	closed bool
}

// NewEncoder returns an Opus encoder for 48 kHz mono 20 ms frames.
func NewEncoder(opts *EncoderOptions) (*Encoder, error) {
	es, err := opts.settings()
	if err != nil {
		return nil, err
	}
	e := &Encoder{}
	src := mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		if e.next == nil {
			return nil, func() {}, io.EOF
		}
		chunk := wave.NewInt16Interleaved(wave.ChunkInfo{Len: FrameSamples, Channels: Channels, SamplingRate: SampleRate})
		copy(chunk.Data, e.next)
		e.next = nil
		return chunk, func() {}, nil
	})
	if e.enc, err = newOpusEncoder(src, es, nil, nil); err != nil {
		return nil, err
	}
	return e, nil
}

// Encode encodes exactly FrameSamples samples into one packet.
func (e *Encoder) Encode(frame []int16) (Packet, error) {
	if len(frame) != FrameSamples {
		return Packet{}, fmt.Errorf("%w: frame of %d samples, want %d", ErrBadPCM, len(frame), FrameSamples)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return Packet{}, ErrClosed
	}
	e.next = frame
	data, release, err := e.enc.Read()
	e.next = nil
	if err != nil {
		return Packet{}, fmt.Errorf("audio: opus encode: %w", err)
	}
	out := Packet{Data: append([]byte(nil), data...), Duration: FrameDuration}
	release()
	return out, nil
}

// Close frees the encoder; safe to call twice.
func (e *Encoder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.enc.Close()
}

// EncodePCM encodes pcm (48 kHz mono) into 20 ms packets, padding the last
// frame with silence.
func EncodePCM(pcm []int16, opts *EncoderOptions) ([]Packet, error) {
	e, err := NewEncoder(opts)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	out := make([]Packet, 0, (len(pcm)+FrameSamples-1)/FrameSamples)
	frame := make([]int16, FrameSamples)
	for off := 0; off < len(pcm); off += FrameSamples {
		n := copy(frame, pcm[off:])
		clear(frame[n:])
		p, err := e.Encode(frame)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
