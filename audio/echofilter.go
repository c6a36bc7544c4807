package audio

import (
	"math"

	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/wave"
)

// processReader runs a capture's mono chunks through p in EchoFrame
// frames. Chunks keep their size and sample type, so the Opus encoder
// after it sees the device's own framing; the price is one frame (10 ms)
// of latency, which also absorbs chunks that do not divide into frames.
type processReader struct {
	src mdaudio.Reader
	p   *Processor
	in  []int16 // samples waiting for a whole frame
	out []int16 // processed samples not yet returned
	buf []int16
}

func newProcessReader(src mdaudio.Reader, p *Processor) mdaudio.Reader {
	p.Restart()
	return &processReader{src: src, p: p, out: make([]int16, EchoFrame), buf: make([]int16, EchoFrame)}
}

func (r *processReader) Read() (wave.Audio, func(), error) {
	chunk, release, err := r.src.Read()
	if err != nil {
		return nil, release, err
	}
	ci := chunk.ChunkInfo()
	n := ci.Len
	switch c := chunk.(type) {
	case *wave.Int16Interleaved:
		r.in = append(r.in, c.Data[:n]...)
	case *wave.Float32Interleaved:
		for _, v := range c.Data[:n] {
			r.in = append(r.in, saturate(float64(v)*math.MaxInt16))
		}
	default:
		// Non-interleaved mono is rare (no malgo backend delivers it);
		// it passes unprocessed rather than failing the turn.
		return chunk, release, nil
	}
	release()
	for len(r.in) >= EchoFrame {
		copy(r.buf, r.in[:EchoFrame])
		if err := r.p.Process(r.buf); err != nil {
			return nil, func() {}, err
		}
		r.out = append(r.out, r.buf...)
		r.in = append(r.in[:0], r.in[EchoFrame:]...)
	}
	var res wave.Audio
	switch chunk.(type) {
	case *wave.Int16Interleaved:
		o := wave.NewInt16Interleaved(ci)
		copy(o.Data, r.out[:n])
		res = o
	default:
		o := wave.NewFloat32Interleaved(ci)
		for i, v := range r.out[:n] {
			o.Data[i] = float32(v) / math.MaxInt16
		}
		res = o
	}
	r.out = append(r.out[:0], r.out[n:]...)
	return res, func() {}, nil
}
