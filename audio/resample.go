package audio

// #cgo pkg-config: speexdsp
// #include <speex/speex_resampler.h>
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/wave"
)

// ResampleQuality is the libspeexdsp resampler quality used for
// microphones that do not capture at 48 kHz: SPEEX_RESAMPLER_QUALITY_DESKTOP
// (5 of 0..10). Its windowed-sinc filter keeps the pass band flat well
// past speech (the Opus encoder at DefaultBitrate codes up to 20 kHz) and
// delays the audio by 1 to 3 ms (0.9 ms from 44.1 kHz, 2.5 ms from
// 16 kHz); one mono stream costs about half a percent of a core
// (BenchmarkResample44k), so the cheaper VoIP quality (3) would save
// nothing that matters.
const ResampleQuality = 5

// speexResampler is one libspeexdsp resampler state for one mono stream;
// not safe for concurrent use. Its filter memory carries over between
// calls, so a capture keeps one for its whole run.
type speexResampler struct {
	st      *C.SpeexResamplerState
	in, out int
	// The lengths libspeexdsp reads and writes back; kept here because
	// locals whose address goes to C would be allocated on every call.
	lens [2]C.spx_uint32_t
}

func newSpeexResampler(in, out, quality int) (*speexResampler, error) {
	if in <= 0 || out <= 0 {
		return nil, fmt.Errorf("%w: sample rate %d Hz to %d Hz", ErrBadConfig, in, out)
	}
	var e C.int
	st := C.speex_resampler_init(1, C.spx_uint32_t(in), C.spx_uint32_t(out), C.int(quality), &e)
	if st == nil {
		return nil, fmt.Errorf("audio: libspeexdsp could not make a resampler from %d Hz to %d Hz (error %d)", in, out, int(e))
	}
	// The filter's start-up delay would otherwise be leading silence.
	C.speex_resampler_skip_zeros(st)
	return &speexResampler{st: st, in: in, out: out}, nil
}

// process resamples all of in into out and returns how many samples it
// wrote. out must hold maxOut(len(in)) samples.
func (r *speexResampler) process(in, out []int16) int {
	if len(in) == 0 {
		return 0
	}
	r.lens = [2]C.spx_uint32_t{C.spx_uint32_t(len(in)), C.spx_uint32_t(len(out))}
	C.speex_resampler_process_int(r.st, 0,
		(*C.spx_int16_t)(unsafe.Pointer(&in[0])), &r.lens[0],
		(*C.spx_int16_t)(unsafe.Pointer(&out[0])), &r.lens[1])
	return int(r.lens[1])
}

// maxOut bounds the output of n input samples, with room for the
// fractional sample the filter may carry over from the previous call.
func (r *speexResampler) maxOut(n int) int {
	return n*r.out/r.in + 2
}

// latency is the delay the filter adds, in output samples.
func (r *speexResampler) latency() int {
	return int(C.speex_resampler_get_output_latency(r.st))
}

func (r *speexResampler) destroy() {
	if r != nil && r.st != nil {
		C.speex_resampler_destroy(r.st)
		r.st = nil
	}
}

// resampleReader brings a capture's mono chunks to SampleRate. Chunks
// already at SampleRate pass untouched; others go through one speexdsp
// state made when the first such chunk arrives (and made again should the
// rate change), so the filter runs continuously across chunk boundaries.
// Its buffers are reused: the chunk it returns is valid until the next
// Read, which suits the pipeline after it (the Processor and the Opus
// encoder copy what they keep), and a steady capture allocates nothing.
type resampleReader struct {
	src    mdaudio.Reader
	onRate func(rate int) // told each new input rate, before resampling it
	rate   int            // the input rate last told
	rs     *speexResampler
	in     []int16
	chunk  *wave.Int16Interleaved
}

func newResampleReader(src mdaudio.Reader, onRate func(rate int)) *resampleReader {
	return &resampleReader{src: src, onRate: onRate}
}

func (r *resampleReader) Read() (wave.Audio, func(), error) {
	a, release, err := r.src.Read()
	if err != nil {
		return nil, release, err
	}
	ci := a.ChunkInfo()
	if ci.SamplingRate != r.rate {
		r.rate = ci.SamplingRate
		if r.onRate != nil {
			r.onRate(r.rate)
		}
	}
	if ci.SamplingRate == SampleRate {
		return a, release, nil
	}
	if ci.Channels != 1 {
		release()
		return nil, func() {}, fmt.Errorf("audio: resampling wants mono audio, got %d channels", ci.Channels)
	}
	if r.rs == nil || r.rs.in != ci.SamplingRate {
		r.rs.destroy()
		if r.rs, err = newSpeexResampler(ci.SamplingRate, SampleRate, ResampleQuality); err != nil {
			release()
			return nil, func() {}, err
		}
	}
	r.in = r.in[:0]
	switch c := a.(type) {
	case *wave.Int16Interleaved:
		r.in = append(r.in, c.Data[:ci.Len]...)
	case *wave.Float32Interleaved:
		for _, v := range c.Data[:ci.Len] {
			r.in = append(r.in, saturate(float64(v)*math.MaxInt16))
		}
	default:
		release()
		return nil, func() {}, fmt.Errorf("audio: cannot resample %T audio", a)
	}
	release()
	max := r.rs.maxOut(len(r.in))
	if r.chunk == nil || cap(r.chunk.Data) < max {
		r.chunk = wave.NewInt16Interleaved(wave.ChunkInfo{Len: max, Channels: 1, SamplingRate: SampleRate})
	}
	n := r.rs.process(r.in, r.chunk.Data[:max])
	r.chunk.Data = r.chunk.Data[:n]
	r.chunk.Size.Len = n
	return r.chunk, func() {}, nil
}

// close frees the resampler state; the reader must not be read again.
func (r *resampleReader) close() {
	r.rs.destroy()
	r.rs = nil
}
