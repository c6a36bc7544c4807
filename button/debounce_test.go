package button_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fixture is a fake Source on a fake clock with the default options.
func fixture(t *testing.T, o button.Options) (*buttontest.Source, *buttontest.Clock) {
	t.Helper()
	clk := buttontest.NewClock(t0)
	o.Clock = clk
	s := buttontest.NewSource(&o)
	t.Cleanup(func() { s.Close() })
	return s, clk
}

// next reads one event that must already be queued.
func next(t *testing.T, s button.Source) button.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ev, err := s.Read(ctx)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	return ev
}

// none checks that no event is queued.
func none(t *testing.T, s button.Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ev, err := s.Read(ctx); err == nil {
		t.Fatalf("unexpected event %v", ev)
	} else if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read: %v, want context.Canceled", err)
	}
}

func want(t *testing.T, got button.Event, control string, pressed, long bool, at time.Time) {
	t.Helper()
	if got.Control != control || got.Pressed != pressed || got.Long != long || !got.At.Equal(at) {
		t.Fatalf("event %+v, want %s pressed=%v long=%v at +%v", got, control, pressed, long, at.Sub(t0))
	}
}

func TestPressRelease(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.Press(button.Scan)
	want(t, next(t, s), button.Scan, true, false, t0) // no latency
	clk.Advance(100 * time.Millisecond)
	s.Release(button.Scan)
	want(t, next(t, s), button.Scan, false, false, t0.Add(100*time.Millisecond))
	clk.Advance(time.Second)
	none(t, s)
}

func TestBouncesCollapse(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.Press(button.Photo)
	for i := 0; i < 5; i++ { // contact bounce within the debounce period
		clk.Advance(2 * time.Millisecond)
		s.Release(button.Photo)
		clk.Advance(2 * time.Millisecond)
		s.Press(button.Photo)
	}
	clk.Advance(time.Second)
	want(t, next(t, s), button.Photo, true, false, t0)
	none(t, s)

	// Bounces on release too: one release, at the first edge.
	rel := clk.Now()
	s.Release(button.Photo)
	clk.Advance(3 * time.Millisecond)
	s.Press(button.Photo)
	clk.Advance(3 * time.Millisecond)
	s.Release(button.Photo)
	clk.Advance(time.Second)
	want(t, next(t, s), button.Photo, false, false, rel)
	none(t, s)
}

func TestQuickTapIsNotLost(t *testing.T) {
	// Keypads send key-up a few ms after key-down; a trailing-edge debouncer
	// would swallow both.
	s, clk := fixture(t, button.Options{})
	s.Press(button.Scan)
	clk.Advance(8 * time.Millisecond)
	s.Release(button.Scan)
	want(t, next(t, s), button.Scan, true, false, t0)
	none(t, s) // the release waits for the end of the debounce period
	clk.Advance(22 * time.Millisecond)
	want(t, next(t, s), button.Scan, false, false, t0.Add(8*time.Millisecond))
	none(t, s)
}

func TestDebounceConfigurable(t *testing.T) {
	s, clk := fixture(t, button.Options{Debounce: 100 * time.Millisecond})
	s.Press(button.Talk)
	clk.Advance(50 * time.Millisecond)
	s.Release(button.Talk)
	clk.Advance(40 * time.Millisecond)
	want(t, next(t, s), button.Talk, true, false, t0)
	none(t, s)
	clk.Advance(10 * time.Millisecond)
	want(t, next(t, s), button.Talk, false, false, t0.Add(50*time.Millisecond))

	off, _ := fixture(t, button.Options{Debounce: -1})
	for _, p := range []bool{true, false, true, false} {
		if p {
			off.Press(button.Talk)
		} else {
			off.Release(button.Talk)
		}
		want(t, next(t, off), button.Talk, p, false, t0)
	}
}

func TestLongPressCancel(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.Press(button.Cancel)
	want(t, next(t, s), button.Cancel, true, false, t0)
	clk.Advance(button.DefaultLongPress - time.Millisecond)
	none(t, s)
	clk.Advance(time.Millisecond)
	want(t, next(t, s), button.Cancel, true, true, t0.Add(button.DefaultLongPress))
	clk.Advance(5 * time.Second)
	none(t, s) // once per press
	s.Release(button.Cancel)
	want(t, next(t, s), button.Cancel, false, false, t0.Add(button.DefaultLongPress+5*time.Second))

	// A short press is not long, even if a bounce restarts nothing.
	clk.Advance(time.Second)
	s.Press(button.Cancel)
	clk.Advance(500 * time.Millisecond)
	s.Release(button.Cancel)
	clk.Advance(2 * time.Second)
	next(t, s)
	want(t, next(t, s), button.Cancel, false, false, clk.Now().Add(-2*time.Second))
	none(t, s)
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers left pending", n)
	}
}

func TestLongPressConfigurable(t *testing.T) {
	s, clk := fixture(t, button.Options{LongPress: 3 * time.Second})
	s.Press(button.Cancel)
	next(t, s)
	clk.Advance(2 * time.Second)
	none(t, s)
	clk.Advance(time.Second)
	want(t, next(t, s), button.Cancel, true, true, t0.Add(3*time.Second))

	off, clk2 := fixture(t, button.Options{LongPress: -1})
	off.Press(button.Cancel)
	next(t, off)
	clk2.Advance(time.Hour)
	none(t, off)

	// Only Cancel has a long press.
	other, clk3 := fixture(t, button.Options{})
	other.Press(button.Scan)
	next(t, other)
	clk3.Advance(time.Hour)
	none(t, other)
}

func TestInputsCombine(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.SetInput(button.Scan, 30, true)
	want(t, next(t, s), button.Scan, true, false, t0)
	clk.Advance(time.Second)
	s.SetInput(button.Scan, 28, true)
	s.SetInput(button.Scan, 30, false)
	clk.Advance(time.Second)
	none(t, s) // still held through input 28
	s.SetInput(button.Scan, 28, false)
	want(t, next(t, s), button.Scan, false, false, t0.Add(2*time.Second))
}

func TestSeedIsNotAPress(t *testing.T) {
	d := button.NewDebouncer(&button.Options{Clock: buttontest.NewClock(t0)})
	defer d.Close()
	d.Seed(button.Scan, 0, true)
	d.Set(button.Scan, true)
	none(t, d)
	d.Set(button.Scan, false)
	want(t, next(t, d), button.Scan, false, false, t0)
}

func TestTap(t *testing.T) {
	s, _ := fixture(t, button.Options{})
	s.Tap(button.Photo, false)
	want(t, next(t, s), button.Photo, true, false, t0)
	want(t, next(t, s), button.Photo, false, false, t0)
	s.Tap(button.Cancel, true)
	want(t, next(t, s), button.Cancel, true, false, t0)
	want(t, next(t, s), button.Cancel, true, true, t0)
	want(t, next(t, s), button.Cancel, false, false, t0)
	none(t, s)
}

func TestQueueDropsOldest(t *testing.T) {
	s, _ := fixture(t, button.Options{Debounce: -1, QueueLen: 3})
	for _, c := range []string{button.Scan, button.Photo, button.Talk} {
		s.Press(c)
		s.Release(c)
	}
	// Six events into a queue of three: the last three remain.
	want(t, next(t, s), button.Photo, false, false, t0)
	want(t, next(t, s), button.Talk, true, false, t0)
	want(t, next(t, s), button.Talk, false, false, t0)
	none(t, s)
}

func TestFailReleasesAndEnds(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.Press(button.Talk)
	s.Press(button.Cancel)
	cause := fmt.Errorf("test: keypad unplugged: %w", button.ErrDisconnected)
	s.Disconnect(cause)
	s.Disconnect(errors.New("second Fail is ignored"))
	s.Press(button.Scan) // ignored after Fail
	clk.Advance(time.Hour)
	want(t, next(t, s), button.Talk, true, false, t0)
	want(t, next(t, s), button.Cancel, true, false, t0)
	got := []button.Event{next(t, s), next(t, s)}
	for _, ev := range got {
		if ev.Pressed {
			t.Fatalf("after Fail: %v, want releases", ev)
		}
	}
	for i := 0; i < 2; i++ { // the error sticks
		if _, err := s.Read(context.Background()); err != cause {
			t.Fatalf("Read after Fail: %v, want %v", err, cause)
		}
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers left pending after Fail", n)
	}
}

func TestCloseUnblocksReaders(t *testing.T) {
	synctest.Test(t, testCloseUnblocksReaders)
}

func testCloseUnblocksReaders(t *testing.T) {
	s, clk := fixture(t, button.Options{})
	s.Press(button.Cancel) // leaves a long-press and a debounce timer pending
	next(t, s)
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Read(context.Background())
			errs <- err
		}()
	}
	synctest.Wait() // the three readers are blocked
	if len(errs) != 0 {
		t.Fatalf("%d Reads returned before Close", len(errs))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, button.ErrClosed) {
			t.Fatalf("blocked Read returned %v, want ErrClosed", err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	s.Press(button.Scan) // no panic, no event
	if _, err := s.Read(context.Background()); !errors.Is(err, button.ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
	if n := clk.Pending(); n != 0 {
		t.Fatalf("%d timers left pending after Close", n)
	}
}

func TestReadHonoursContext(t *testing.T) {
	s, _ := fixture(t, button.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Read(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Read: %v, want DeadlineExceeded", err)
	}
}

func TestConcurrentReadersShareEvents(t *testing.T) {
	s, _ := fixture(t, button.Options{Debounce: -1, QueueLen: 1000})
	const n = 200
	var wg sync.WaitGroup
	counts := make(chan int, 4)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var mu sync.Mutex
	total := 0
	for r := 0; r < 4; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := 0
			for {
				mu.Lock()
				done := total == n
				mu.Unlock()
				if done {
					break
				}
				rctx, rcancel := context.WithTimeout(ctx, 50*time.Millisecond)
				_, err := s.Read(rctx)
				rcancel()
				if err == nil {
					c++
					mu.Lock()
					total++
					mu.Unlock()
				} else if ctx.Err() != nil {
					break
				}
			}
			counts <- c
		}()
	}
	for i := 0; i < n/2; i++ {
		s.Press(button.Scan)
		s.Release(button.Scan)
	}
	wg.Wait()
	close(counts)
	sum := 0
	for c := range counts {
		sum += c
	}
	if sum != n {
		t.Fatalf("readers got %d events, want %d", sum, n)
	}
}

func TestSystemClock(t *testing.T) {
	// The real clock path: a quick tap's release arrives when the debounce
	// period ends, from a time.AfterFunc goroutine that Close must not leak.
	s := buttontest.NewSource(&button.Options{Debounce: 5 * time.Millisecond})
	defer s.Close()
	s.Press(button.Scan)
	s.Release(button.Scan)
	ev := next(t, s)
	if ev.Control != button.Scan || !ev.Pressed {
		t.Fatalf("got %v", ev)
	}
	if ev = next(t, s); ev.Pressed {
		t.Fatalf("got %v, want release", ev)
	}
	s.Press(button.Cancel) // timers pending at Close
}

func TestCheckControl(t *testing.T) {
	for _, c := range button.Controls {
		if err := button.CheckControl(c); err != nil {
			t.Errorf("CheckControl(%q): %v", c, err)
		}
	}
	long := "x" + string(make([]byte, 500))
	for _, bad := range []string{"", "Scan", "scan ", long} {
		err := button.CheckControl(bad)
		if !errors.Is(err, button.ErrUnknownControl) {
			t.Errorf("CheckControl(%q) = %v", bad, err)
		} else if len(err.Error()) > 200 {
			t.Errorf("error not bounded: %d bytes", len(err.Error()))
		}
	}
}

func TestStrings(t *testing.T) {
	for l, s := range map[button.Light]string{button.LightOff: "off", button.LightOn: "on", button.LightBlink: "blink", 7: "Light(7)"} {
		if l.String() != s {
			t.Errorf("%d.String() = %q", int(l), l.String())
		}
	}
	if s := (button.Event{Control: "cancel", Pressed: true, Long: true}).String(); s != "cancel long press" {
		t.Errorf("Event.String() = %q", s)
	}
}
