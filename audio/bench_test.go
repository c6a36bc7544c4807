package audio_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// reportCore adds the share of one core that cpuPerFrame costs in real
// time, the figure the "≤ 3 % of a core per minute of audio"
// target is about (a minute is 3,000 frames, so the share is the same for
// any duration).
func reportCore(b *testing.B, cpuPerFrame time.Duration) {
	b.ReportMetric(float64(cpuPerFrame.Nanoseconds()), "cpu-ns/frame")
	b.ReportMetric(100*float64(cpuPerFrame)/float64(audio.FrameDuration), "%core")
}

// Encode and decode alone, as fast as they go: one op is one 20 ms frame.
func BenchmarkEncodeDecodeFrame(b *testing.B) {
	pcm, err := audio.Voice(&audio.VoiceOptions{Duration: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	enc, err := audio.NewEncoder(nil)
	if err != nil {
		b.Fatal(err)
	}
	defer enc.Close()
	dec, _ := audio.NewDecoder()
	frames := len(pcm) / audio.FrameSamples
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		off := (i % frames) * audio.FrameSamples
		p, err := enc.Encode(pcm[off : off+audio.FrameSamples])
		if err != nil {
			b.Fatal(err)
		}
		if _, err := dec.Decode(p.Data); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	reportCore(b, b.Elapsed()/time.Duration(b.N))
}

// The capture path as a session runs it: mediadevices' test microphone in
// real time, encoded, queued, read and decoded. One op is one 20 ms frame;
// ns/op is therefore about 20 ms of wall time, and the CPU the whole
// process spent meanwhile (Go runtime included) is reported per frame.
func BenchmarkMicCaptureEncodeDecode(b *testing.B) {
	m, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	dec, _ := audio.NewDecoder()
	ctx := context.Background()
	b.ResetTimer()
	cpu0 := cpuTime(b)
	if err := m.Start(ctx); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		p, err := m.ReadPacket(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := dec.Decode(p.Data); err != nil {
			b.Fatal(err)
		}
	}
	if err := m.Stop(); err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime(b) - cpu0
	b.StopTimer()
	reportCore(b, cpu/time.Duration(b.N))
}

// cpuTime is the CPU time of the process' live threads from the
// scheduler's nanosecond accounting (/proc/self/task/*/schedstat);
// getrusage counts in whole ticks on some kernels, too coarse for the
// few hundred microseconds a frame costs. Go does not end its threads, so
// no time is lost with exited ones.
func cpuTime(b *testing.B) time.Duration {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		var ru syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var total time.Duration
	for _, t := range tasks {
		st, err := os.ReadFile("/proc/self/task/" + t.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		f := strings.Fields(string(st))
		if len(f) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			b.Fatalf("schedstat of thread %s: %q", t.Name(), st)
		}
		total += time.Duration(ns)
	}
	return total
}
