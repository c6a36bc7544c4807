package nfc_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// benchDev opens a Dev on the vpcd reader and waits until it is ready.
func benchDev(b *testing.B) *nfc.Dev {
	b.Helper()
	vpcdtest.Require(b)
	store, err := keystore.Create(filepath.Join(b.TempDir(), "keystore"))
	if err != nil {
		b.Fatal(err)
	}
	ready := make(chan struct{}, 1)
	dev, err := nfc.New(context.Background(), &nfc.Options{
		Reader: vpcdtest.Reader, Aliaser: store, Scope: scope,
		Logger: slog.New(slog.DiscardHandler), Debounce: -1,
		OnState: func(s nfc.Status) {
			if s.State == nfc.StateReady {
				select {
				case ready <- struct{}{}:
				default:
				}
			}
		},
	})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- dev.Run(context.Background()) }()
	b.Cleanup(func() { dev.Close(); <-done })
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		b.Fatal("reader not ready")
	}
	return dev
}

// BenchmarkTapLatency taps a tag b.N times (run with -benchtime 200x or
// more) and reports what acbridge adds between pcscd reporting the tag and
// the observation being ready: "own" excludes the time spent in pcscd and
// the reader (connect, GET DATA, disconnect), "total" includes it. One tap
// takes about a second of wall time because pcscd polls vpcd every 400 ms.
func BenchmarkTapLatency(b *testing.B) {
	dev := benchDev(b)
	card := vpcd.New(vpcd.DefaultAddr)
	defer card.Close()
	ctx := context.Background()
	own := make([]time.Duration, 0, b.N)
	total := make([]time.Duration, 0, b.N)
	for i := 0; b.Loop(); i++ {
		if err := dev.Arm(30 * time.Second); err != nil {
			b.Fatal(err)
		}
		uid := []byte{0x04, 0x42, byte(i >> 8), byte(i), 0x10, 0x20, 0x30}
		if err := card.Insert(ctx, uid); err != nil {
			b.Fatal(err)
		}
		s := <-dev.Scans()
		if s.Err != nil || s.Unidentifiable {
			b.Fatalf("tap %d: %+v", i, s)
		}
		t := s.ReadyAt.Sub(s.PresentAt)
		total = append(total, t)
		own = append(own, t-s.ReaderTime)
		// The next Insert waits for the driver's next poll, which first
		// reports this card gone: every tap is a fresh insertion.
		card.Remove()
	}
	report := func(name string, d []time.Duration) {
		slices.Sort(d)
		b.ReportMetric(float64(pct(d, 50).Microseconds()), name+"-p50-µs")
		b.ReportMetric(float64(pct(d, 99).Microseconds()), name+"-p99-µs")
	}
	report("own", own)
	report("total", total)
	b.ReportMetric(0, "ns/op") // a tap's wall time is pcscd's polling, not ours
}

func pct(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100 // nearest rank
	return sorted[max(i-1, 0)]
}

// BenchmarkIdleCPU measures this process's CPU use over 60 s
// (ACBRIDGE_IDLE_SECONDS overrides) with the reader attached and nothing
// armed. It runs once whatever b.N is.
func BenchmarkIdleCPU(b *testing.B) {
	dev := benchDev(b)
	_ = dev
	secs := 60
	if s, err := strconv.Atoi(os.Getenv("ACBRIDGE_IDLE_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	var r0, r1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
	t0 := time.Now()
	time.Sleep(time.Duration(secs) * time.Second) // the span whose CPU use is measured
	wall := time.Since(t0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
	cpu := time.Duration(syscall.TimevalToNsec(r1.Utime) - syscall.TimevalToNsec(r0.Utime) +
		syscall.TimevalToNsec(r1.Stime) - syscall.TimevalToNsec(r0.Stime))
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu-%")
	b.ReportMetric(float64(cpu.Microseconds()), "cpu-µs")
	b.ReportMetric(wall.Seconds(), "wall-s")
	b.ReportMetric(0, "ns/op")
}
