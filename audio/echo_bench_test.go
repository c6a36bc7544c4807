package audio_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// BenchmarkEchoFrame is the canceller's cost per 10 ms frame with an
// echo to cancel (make bench). ns/op over 10 ms is the share of a core.
func BenchmarkEchoFrame(b *testing.B) {
	p, err := audio.NewProcessor(&audio.EchoOptions{Cancel: true, NoiseSuppress: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	far := audio.SpeechLike(2*time.Second, 120, 1)
	mic := audio.Mix(len(far), audio.NewEchoPath(50*time.Millisecond, 6, 150*time.Millisecond, 90*time.Millisecond, 3).Apply(far))
	frame := make([]int16, audio.EchoFrame)
	frames := len(far) / audio.EchoFrame
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		at := (i % frames) * audio.EchoFrame
		p.Far(far[at : at+audio.EchoFrame])
		copy(frame, mic[at:])
		if err := p.Process(frame); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEchoPaths measures the canceller on simulated echo paths, one
// sub-benchmark per path and talk mode; bench/echo.sh runs it
// (ACBRIDGE_ECHO_PATHS=1, -benchtime 1x) and prints the table. Each run is
// 12 s of audio: a far-end talker (generated, or the 48 kHz mono WAV
// named by ACBRIDGE_ECHO_FAR, such as espeak-ng's voice) through the
// path; in double talk a near-end talker joins at 8 s.
//
// Metrics: ERLE_dB over 8..12 s (single talk), conv_s until the ERLE of
// every later 250 ms window stays at or above 20 dB (single talk),
// near_dB the near-end talker's level change over 8..12 s (double talk),
// delay_ms the measured delay, cpu_% the process CPU time per second of
// audio (one core = 100).
func BenchmarkEchoPaths(b *testing.B) {
	if os.Getenv("ACBRIDGE_ECHO_PATHS") == "" {
		b.Skip("12 s of audio per path: run bench/echo.sh")
	}
	const length = 12 * time.Second
	far := audio.SpeechLike(length, 120, 1)
	if name := os.Getenv("ACBRIDGE_ECHO_FAR"); name != "" {
		far = loadFar(b, name, len(far))
	}
	talkFrom := 8 * time.Second
	near := make([]int16, len(far))
	copy(near[samples(talkFrom):], audio.SpeechLike(length-talkFrom, 210, 2))
	for _, delay := range []time.Duration{20, 50, 100, 150} {
		for _, att := range []float64{0, 6, 12} {
			path := audio.NewEchoPath(delay*time.Millisecond, att, 150*time.Millisecond, 90*time.Millisecond, uint64(delay))
			echo := path.Apply(far)
			for _, double := range []bool{false, true} {
				mode := "single"
				parts := [][]float64{echo, noise(len(far))}
				if double {
					mode = "double"
					parts = append(parts, audio.Float(near))
				}
				mic := audio.Mix(len(far), parts...)
				b.Run(fmt.Sprintf("delay=%dms/atten=%gdB/%s", delay, att, mode), func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						runPath(b, far, mic, near, double, talkFrom)
					}
				})
			}
		}
	}
}

func runPath(b *testing.B, far, mic, near []int16, double bool, talkFrom time.Duration) {
	p, err := audio.NewProcessor(&audio.EchoOptions{Cancel: true})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	t0 := cpuTime(b)
	out, err := audio.CancelEcho(p, far, mic)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime(b) - t0
	from := samples(talkFrom)
	st := p.Stats()
	b.ReportMetric(float64(st.Delay.Milliseconds()), "delay_ms")
	b.ReportMetric(100*cpu.Seconds()/(float64(len(out))/audio.SampleRate), "cpu_%")
	if double {
		b.ReportMetric(audio.LevelDB(out, from, len(out))-audio.LevelDB(near, from, len(out)), "near_dB")
		return
	}
	b.ReportMetric(audio.ERLE(mic, out, from, len(out)), "ERLE_dB")
	if conv, ok := audio.Convergence(mic, out, 0, len(out), 20); ok {
		b.ReportMetric(conv.Seconds(), "conv_s")
	} else {
		b.ReportMetric(-1, "conv_s")
	}
}

func samples(d time.Duration) int { return int(d * audio.SampleRate / time.Second) }

// noise is a faint room hum, about -80 dBFS.
func noise(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i%7) - 3
	}
	return out
}

func loadFar(b *testing.B, name string, n int) []int16 {
	f, err := os.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := audio.ReadWAV(f, 64<<20)
	if err != nil {
		b.Fatal(err)
	}
	if w.SampleRate != audio.SampleRate || w.Channels != 1 {
		b.Fatalf("%s: %d Hz, %d channels; want 48000 Hz mono (sox IN -r 48000 -c 1 OUT)", name, w.SampleRate, w.Channels)
	}
	out := make([]int16, n)
	// A short recording repeats, as a talker who goes on.
	for at := 0; at < n && len(w.Samples) > 0; at += len(w.Samples) {
		copy(out[at:], w.Samples)
	}
	return out
}
