package audio

import (
	"math"
	"testing"
	"time"

	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/wave"
)

// toneSource delivers 20 ms chunks of a 1 kHz sine at rate, reusing one
// chunk as a device's reader does.
func toneSource(rate int) (mdaudio.Reader, *int) {
	n := rate / 50
	chunk := wave.NewInt16Interleaved(wave.ChunkInfo{Len: n, Channels: 1, SamplingRate: rate})
	pos := new(int)
	return mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		for i := range chunk.Data {
			chunk.Data[i] = int16(8000 * math.Sin(2*math.Pi*1000*float64(*pos)/float64(rate)))
			*pos++
		}
		return chunk, func() {}, nil
	}), pos
}

// A steady capture allocates nothing per chunk once its buffers have
// grown, and the output keeps pace with the input: 20 ms in, 20 ms out.
func TestResampleReaderSteady(t *testing.T) {
	for _, rate := range []int{44100, 16000, 32000, 96000} {
		src, _ := toneSource(rate)
		var told []int
		r := newResampleReader(src, func(r int) { told = append(told, r) })
		total, chunks := 0, 0
		for range 10 {
			a, _, err := r.Read()
			if err != nil {
				t.Fatal(err)
			}
			if got := a.ChunkInfo().SamplingRate; got != SampleRate {
				t.Fatalf("%d Hz: a chunk at %d Hz", rate, got)
			}
			total += a.ChunkInfo().Len
			chunks++
		}
		allocs := testing.AllocsPerRun(100, func() {
			a, _, _ := r.Read()
			total += a.ChunkInfo().Len
			chunks++
		})
		if allocs != 0 {
			t.Errorf("%d Hz: %.1f allocations per chunk, want none", rate, allocs)
		}
		// 20 ms out for every 20 ms in, less the filter's delay (under
		// 3 ms).
		if want := chunks * FrameSamples; total > want || total < want-3*SampleRate/1000 {
			t.Errorf("%d Hz: %d samples out for %d in 48 kHz terms", rate, total, want)
		}
		if len(told) != 1 || told[0] != rate {
			t.Errorf("%d Hz: told %v", rate, told)
		}
		t.Logf("%d Hz -> 48 kHz: filter delay %d samples (%.2f ms) at quality %d", rate, r.rs.latency(),
			float64(r.rs.latency())*1000/SampleRate, ResampleQuality)
		r.close()
	}
}

// 48 kHz passes untouched, with no resampler made.
func TestResampleReaderPassesSampleRate(t *testing.T) {
	src, _ := toneSource(SampleRate)
	r := newResampleReader(src, nil)
	a, _, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if r.rs != nil || a.ChunkInfo().Len != FrameSamples {
		t.Fatalf("48 kHz went through a resampler (%v) or changed length (%d)", r.rs != nil, a.ChunkInfo().Len)
	}
	r.close()
}

// Stereo reaching the resampler is a bug upstream (the down-mix runs
// first), reported as an error rather than garbled audio.
func TestResampleReaderRefusesStereo(t *testing.T) {
	chunk := wave.NewInt16Interleaved(wave.ChunkInfo{Len: 441, Channels: 2, SamplingRate: 44100})
	r := newResampleReader(mdaudio.ReaderFunc(func() (wave.Audio, func(), error) { return chunk, func() {}, nil }), nil)
	if _, _, err := r.Read(); err == nil {
		t.Fatal("stereo resampled")
	}
	r.close()
}

// The resampler's cost per 20 ms frame (44.1 kHz in), reported as a
// share of real time.
func BenchmarkResample44k(b *testing.B) {
	src, _ := toneSource(44100)
	r := newResampleReader(src, nil)
	defer r.close()
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		if _, _, err := r.Read(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(100*time.Since(start).Seconds()/(float64(b.N)*FrameDuration.Seconds()), "%realtime")
}
