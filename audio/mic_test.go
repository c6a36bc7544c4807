package audio_test

import (
	"context"
	"errors"
	"math"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/pion/mediadevices/pkg/driver"
)

// countingMic opens a Mic on mediadevices' test tone through a driver
// wrapper that counts opens and closes.
func countingMic(t *testing.T, opts audio.MicOptions) (*audio.Mic, *audiotest.CountingDriver) {
	t.Helper()
	d, err := audiotest.TestDriver()
	if err != nil {
		t.Fatal(err)
	}
	cd, err := audiotest.Count(d)
	if err != nil {
		t.Fatal(err)
	}
	opts.Driver = cd
	m, err := audio.NewMic(&opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m, cd
}

// readAll reads packets in a loop, as the WebRTC writer does, until ctx
// ends or the Mic closes. waitFor(n) waits until n packets were read or the
// reading ended, and reports whether n were; collect returns them all once
// the reading ended.
func readAll(ctx context.Context, m *audio.Mic) (waitFor func(n int) bool, collect func() []audio.Packet) {
	var (
		mu      sync.Mutex
		ps      []audio.Packet
		changed = make(chan struct{}, 1)
		done    = make(chan struct{})
	)
	go func() {
		defer close(done)
		for {
			p, err := m.ReadPacket(ctx)
			if err != nil {
				return
			}
			mu.Lock()
			ps = append(ps, p)
			mu.Unlock()
			select {
			case changed <- struct{}{}:
			default:
			}
		}
	}()
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(ps)
	}
	waitFor = func(n int) bool {
		for count() < n {
			select {
			case <-changed:
			case <-done:
				return count() >= n
			}
		}
		return true
	}
	return waitFor, func() []audio.Packet {
		<-done
		mu.Lock()
		defer mu.Unlock()
		return ps
	}
}

func TestMicTestToneOneSecond(t *testing.T) {
	m, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if m.Name() != audio.TestDevice {
		t.Errorf("Name() = %q", m.Name())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	waitFor, collect := readAll(ctx, m)

	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A second of tone, however long the machine takes to deliver it.
	if !waitFor(50) {
		t.Fatalf("the capture ended before 50 packets: %+v", m.Stats())
	}
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	if err := m.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	m.Close()
	packets := collect()

	if len(packets) < 50 {
		t.Fatalf("1 s of capture gave %d packets, want >= 50", len(packets))
	}
	if st := m.Stats(); st.Packets != len(packets) || st.Dropped != 0 || st.Runs != 1 {
		t.Errorf("stats %+v, reader got %d packets", st, len(packets))
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var pcm []int16
	for i, p := range packets {
		if p.Duration != 20*time.Millisecond || len(p.Data) == 0 || len(p.Data) > 400 {
			t.Fatalf("packet %d: %d bytes, duration %v", i, len(p.Data), p.Duration)
		}
		s, err := dec.Decode(p.Data)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if len(s) != audio.FrameSamples {
			t.Fatalf("packet %d decodes to %d samples", i, len(s))
		}
		pcm = append(pcm, s...)
	}
	lv := audio.Analyze(pcm[audio.FrameSamples*5:]) // skip the codec's start-up
	t.Logf("%d packets, %v, RMS %.1f dBFS, peak %.3f, dominant %.2f Hz", len(packets), lv.Duration, audio.DBFS(lv.RMS), lv.Peak, lv.Dominant)
	// The driver's sine has amplitude 0.25: RMS 0.177 (-15 dBFS).
	if lv.RMS < 0.12 || lv.RMS > 0.25 {
		t.Errorf("RMS %.3f, want about 0.177", lv.RMS)
	}
	if math.Abs(lv.Dominant-audio.TestToneHz) > 3 {
		t.Errorf("dominant frequency %.2f Hz, want %.0f ± 3", lv.Dominant, audio.TestToneHz)
	}
	if lv.Clipped != 0 {
		t.Errorf("%d clipped samples", lv.Clipped)
	}
}

func TestMicOpenOnlyWhileRunning(t *testing.T) { synctest.Test(t, testMicOpenOnlyWhileRunning) }

func testMicOpenOnlyWhileRunning(t *testing.T) {
	m, cd := countingMic(t, audio.MicOptions{})
	ctx := context.Background()
	check := func(step string, opens, closes int, open bool) {
		t.Helper()
		o, c, isOpen := cd.Counts()
		if o != opens || c != closes || isOpen != open {
			t.Fatalf("%s: opens %d closes %d open %v, want %d %d %v", step, o, c, isOpen, opens, closes, open)
		}
		wantState := driver.StateClosed
		if open {
			wantState = driver.StateRunning
		}
		if st := cd.Status(); st != wantState {
			t.Fatalf("%s: driver state %q, want %q", step, st, wantState)
		}
		if m.Running() != open {
			t.Fatalf("%s: Running() = %v", step, m.Running())
		}
	}
	check("after NewMic", 0, 0, false)
	for turn := 1; turn <= 3; turn++ {
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
		check("after Start", turn, turn-1, true)
		if err := m.Start(ctx); !errors.Is(err, audio.ErrRunning) {
			t.Fatalf("second Start: %v, want ErrRunning", err)
		}
		time.Sleep(60 * time.Millisecond) // synctest's clock
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
		check("after Stop", turn, turn, false)
		if err := m.Stop(); err != nil {
			t.Fatalf("second Stop: %v", err)
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	check("after Close", 3, 3, false)
	if err := m.Start(ctx); !errors.Is(err, audio.ErrClosed) {
		t.Fatalf("Start after Close: %v", err)
	}
	check("Start after Close", 3, 3, false)
}

func TestMicContextEndsRun(t *testing.T) { synctest.Test(t, testMicContextEndsRun) }

func testMicContextEndsRun(t *testing.T) {
	m, cd := countingMic(t, audio.MicOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cancel()
	synctest.Wait() // the run saw its context end
	if _, closes, open := cd.Counts(); open || closes != 1 {
		t.Fatalf("after the run's context ended: closes %d, open %v", closes, open)
	}
	if err := m.Start(context.Background()); err != nil {
		t.Fatalf("Start after a context ended the previous run: %v", err)
	}
	m.Stop()
}

func TestMicCloseUnblocksReader(t *testing.T) { synctest.Test(t, testMicCloseUnblocksReader) }

func testMicCloseUnblocksReader(t *testing.T) {
	for _, running := range []bool{false, true} {
		m, cd := countingMic(t, audio.MicOptions{})
		if running {
			if err := m.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
		}
		errc := make(chan error, 2)
		for range 2 {
			go func() {
				for {
					if _, err := m.ReadPacket(context.Background()); err != nil {
						errc <- err
						return
					}
				}
			}()
		}
		synctest.Wait() // both readers blocked
		if err := m.Close(); err != nil {
			t.Fatal(err)
		}
		if err := m.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		for range 2 {
			select {
			case err := <-errc:
				if !errors.Is(err, audio.ErrClosed) {
					t.Fatalf("blocked reader got %v, want ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Close did not unblock ReadPacket")
			}
		}
		if _, _, open := cd.Counts(); open {
			t.Fatal("device still open after Close")
		}
		if _, err := m.ReadPacket(context.Background()); !errors.Is(err, audio.ErrClosed) {
			t.Fatalf("ReadPacket after Close: %v", err)
		}
		if err := m.Drain(context.Background()); !errors.Is(err, audio.ErrClosed) {
			t.Fatalf("Drain after Close: %v", err)
		}
	}
}

func TestMicReadPacketContext(t *testing.T) {
	m, _ := countingMic(t, audio.MicOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := m.ReadPacket(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadPacket with no run: %v, want deadline exceeded", err)
	}
}

// Drain returns only once the reader has taken every packet of the
// stopped run and come back for more: the point to commit a turn.
func TestMicDrainThenCommit(t *testing.T) { synctest.Test(t, testMicDrainThenCommit) }

func testMicDrainThenCommit(t *testing.T) {
	m, _ := countingMic(t, audio.MicOptions{})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	written := 0
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if _, err := m.ReadPacket(ctx); err != nil {
				return
			}
			time.Sleep(2 * time.Millisecond) // synctest's clock: a slow track write
			mu.Lock()
			written++
			mu.Unlock()
		}
	}()
	for turn := 0; turn < 2; turn++ {
		if err := m.Start(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond) // synctest's clock
		if err := m.Stop(); err != nil {
			t.Fatal(err)
		}
		if err := m.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := written
		mu.Unlock()
		if want := m.Stats().Packets; got != want {
			t.Fatalf("turn %d: Drain returned with %d of %d packets written", turn, got, want)
		}
	}
	m.Close()
	wg.Wait()
}

func TestMicQueueDropsOldest(t *testing.T) { synctest.Test(t, testMicQueueDropsOldest) }

func testMicQueueDropsOldest(t *testing.T) {
	m, _ := countingMic(t, audio.MicOptions{Queue: 3})
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // synctest's clock
	m.Stop()
	st := m.Stats()
	if st.Dropped != st.Packets-3 || st.Packets < 5 {
		t.Fatalf("stats %+v, want all but 3 dropped", st)
	}
	for i := 0; i < 3; i++ {
		if _, err := m.ReadPacket(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := m.ReadPacket(ctx); err == nil {
		t.Fatal("a fourth packet was queued")
	}

	// A cancelled turn's packets can be thrown away.
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // synctest's clock
	m.Stop()
	if n := m.Discard(); n != 3 {
		t.Fatalf("Discard dropped %d packets, want 3", n)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel2()
	if _, err := m.ReadPacket(ctx2); err == nil {
		t.Fatal("a packet survived Discard")
	}
}

func TestNewMicErrors(t *testing.T) {
	if _, err := audio.NewMic(&audio.MicOptions{Device: "no-such-microphone"}); !errors.Is(err, audio.ErrNoMicrophone) {
		t.Errorf("unknown device: %v, want ErrNoMicrophone", err)
	}
	if _, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice, Encoder: audio.EncoderOptions{Bitrate: 1}}); !errors.Is(err, audio.ErrBadConfig) {
		t.Errorf("bitrate 1: %v, want ErrBadConfig", err)
	}
	if _, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice, Queue: -1}); !errors.Is(err, audio.ErrBadConfig) {
		t.Errorf("negative queue: %v, want ErrBadConfig", err)
	}
	for _, d := range audio.Microphones() {
		if d.ID == "null" {
			t.Errorf("Microphones lists the null placeholder: %+v", d)
		}
	}
}
