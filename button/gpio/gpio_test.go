package gpio

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/warthog618/go-gpiocdev"
	"go.uber.org/goleak"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// fakeLine stands in for a requested line; GPIO has no software stand-in.
type fakeLine struct {
	mu      sync.Mutex
	value   int
	values  []int
	closes  int
	failSet error
}

func (l *fakeLine) Value() (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.value, nil
}

func (l *fakeLine) SetValue(v int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failSet != nil {
		return l.failSet
	}
	l.value = v
	l.values = append(l.values, v)
	return nil
}

func (l *fakeLine) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closes++
	return nil
}

// chipSim records requests and hands out fake lines.
type chipSim struct {
	lines    map[int]*fakeLine
	opts     map[int][]gpiocdev.LineReqOption
	handlers map[int]gpiocdev.EventHandler
	fail     map[int]error
}

func newChipSim() *chipSim {
	return &chipSim{
		lines:    map[int]*fakeLine{},
		opts:     map[int][]gpiocdev.LineReqOption{},
		handlers: map[int]gpiocdev.EventHandler{},
		fail:     map[int]error{},
	}
}

func (c *chipSim) request(chip string, offset int, opts ...gpiocdev.LineReqOption) (line, error) {
	if err := c.fail[offset]; err != nil {
		return nil, err
	}
	var plain []gpiocdev.LineReqOption
	for _, o := range opts {
		if h, ok := o.(gpiocdev.EventHandler); ok {
			c.handlers[offset] = h
		} else {
			plain = append(plain, o)
		}
	}
	c.opts[offset] = plain
	l, ok := c.lines[offset]
	if !ok {
		l = &fakeLine{}
		c.lines[offset] = l
	}
	return l, nil
}

func (c *chipSim) edge(offset int, rising bool) {
	typ := gpiocdev.LineEventFallingEdge
	if rising {
		typ = gpiocdev.LineEventRisingEdge
	}
	c.handlers[offset](gpiocdev.LineEvent{Offset: offset, Type: typ})
}

func TestInputOptions(t *testing.T) {
	c := gpiocdev.WithConsumer("acbridge")
	for _, tc := range []struct {
		line Line
		want []gpiocdev.LineReqOption
	}{
		{Line{ActiveLow: true, Bias: BiasPullUp},
			[]gpiocdev.LineReqOption{c, gpiocdev.AsActiveLow, gpiocdev.WithPullUp, gpiocdev.WithBothEdges}},
		{Line{Bias: BiasPullDown},
			[]gpiocdev.LineReqOption{c, gpiocdev.WithPullDown, gpiocdev.WithBothEdges}},
		{Line{Bias: BiasDisabled},
			[]gpiocdev.LineReqOption{c, gpiocdev.WithBiasDisabled, gpiocdev.WithBothEdges}},
		{Line{},
			[]gpiocdev.LineReqOption{c, gpiocdev.WithBothEdges}},
		{Line{ActiveLow: true, KernelDebounce: 5 * time.Millisecond},
			[]gpiocdev.LineReqOption{c, gpiocdev.AsActiveLow, gpiocdev.WithBothEdges, gpiocdev.WithDebounce(5 * time.Millisecond)}},
	} {
		got, err := inputOptions(tc.line, "acbridge")
		if err != nil {
			t.Fatalf("%+v: %v", tc.line, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%+v:\n got %#v\nwant %#v", tc.line, got, tc.want)
		}
	}
	for _, bad := range []Line{{Bias: Bias(9)}, {KernelDebounce: -1}, {KernelDebounce: 2 * time.Second}} {
		if _, err := inputOptions(bad, "acbridge"); err == nil || !strings.HasPrefix(err.Error(), "button/gpio: ") {
			t.Errorf("%+v: error %v", bad, err)
		}
	}
	got := outputOptions(&IndicatorOptions{ActiveLow: true}, "kiosk")
	want := []gpiocdev.LineReqOption{gpiocdev.WithConsumer("kiosk"), gpiocdev.AsActiveLow, gpiocdev.AsOutput(0)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("outputOptions: %#v", got)
	}
}

func TestParseBias(t *testing.T) {
	for in, want := range map[string]Bias{"": BiasAsIs, "as-is": BiasAsIs, "Pull-Up": BiasPullUp, " pull-down": BiasPullDown, "disabled": BiasDisabled} {
		if b, err := ParseBias(in); err != nil || b != want {
			t.Errorf("ParseBias(%q) = %v, %v", in, b, err)
		}
		if want.String() == "" {
			t.Errorf("no name for %d", int(want))
		}
	}
	if _, err := ParseBias("pullup"); err == nil {
		t.Error("ParseBias accepted pullup")
	}
}

func next(t *testing.T, s button.Source) button.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	ev, err := s.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return ev
}

func none(t *testing.T, s button.Source) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ev, err := s.Read(ctx); err == nil {
		t.Fatalf("unexpected %v", ev)
	}
}

func TestEdgesBecomeEvents(t *testing.T) {
	sim := newChipSim()
	sim.lines[27] = &fakeLine{value: 1} // cancel held while acbridge starts
	clk := buttontest.NewClock(t0)
	s, err := open(&Options{
		Lines: []Line{
			{Control: button.Scan, Chip: "gpiochip0", Offset: 17, ActiveLow: true, Bias: BiasPullUp},
			{Control: button.Cancel, Chip: "/dev/gpiochip0", Offset: 27, ActiveLow: true, Bias: BiasPullUp},
		},
		Button: button.Options{Clock: clk},
	}, sim.request)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want, _ := inputOptions(Line{ActiveLow: true, Bias: BiasPullUp}, DefaultConsumer)
	if !reflect.DeepEqual(sim.opts[17], want) {
		t.Fatalf("requested %#v", sim.opts[17])
	}

	none(t, s) // the held cancel is not a press
	sim.edge(17, true)
	if ev := next(t, s); ev.Control != button.Scan || !ev.Pressed {
		t.Fatalf("got %v", ev)
	}
	sim.edge(17, false) // a bounce within the debounce period
	sim.edge(17, true)
	clk.Advance(time.Second)
	none(t, s)
	sim.edge(17, false)
	if ev := next(t, s); ev.Control != button.Scan || ev.Pressed {
		t.Fatalf("got %v", ev)
	}

	sim.edge(27, false) // the held cancel released, then a long press
	clk.Advance(time.Second)
	next(t, s)
	sim.edge(27, true)
	next(t, s)
	clk.Advance(button.DefaultLongPress)
	if ev := next(t, s); !ev.Long || ev.Control != button.Cancel {
		t.Fatalf("got %v, want cancel long press", ev)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if sim.lines[17].closes != 1 || sim.lines[27].closes != 1 {
		t.Fatalf("lines closed %d and %d times", sim.lines[17].closes, sim.lines[27].closes)
	}
	sim.edge(17, true) // a late kernel event after Close is ignored
	if _, err := s.Read(context.Background()); !errors.Is(err, button.ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

func TestOpenValidates(t *testing.T) {
	for _, o := range []*Options{
		nil,
		{},
		{Lines: []Line{{Control: "go", Chip: "gpiochip0", Offset: 1}}},
		{Lines: []Line{{Control: button.Scan, Offset: 1}}},
		{Lines: []Line{{Control: button.Scan, Chip: "gpiochip0", Offset: -1}}},
		{Lines: []Line{{Control: button.Scan, Chip: "gpiochip0", Offset: 1}, {Control: button.Photo, Chip: "/dev/gpiochip0", Offset: 1}}},
		{Lines: []Line{{Control: button.Scan, Chip: "gpiochip0", Offset: 1, Bias: 7}}},
	} {
		sim := newChipSim()
		if s, err := open(o, sim.request); err == nil {
			s.Close()
			t.Errorf("open(%+v) succeeded", o)
		} else if !strings.HasPrefix(err.Error(), "button/gpio: ") {
			t.Errorf("error %q lacks the package prefix", err)
		} else if len(sim.lines) != 0 {
			t.Errorf("open(%+v) requested lines before failing validation", o)
		}
	}
}

func TestRequestErrorsTellTheFix(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{&fs.PathError{Op: "open", Path: "/dev/gpiochip0", Err: syscall.EACCES}, []string{"group gpio", "70-acbridge.rules", "DeviceAllow=char-gpiochip"}},
		{&fs.PathError{Op: "open", Path: "/dev/gpiochip0", Err: syscall.EPERM}, []string{"group gpio"}},
		{&fs.PathError{Op: "lstat", Path: "/dev/gpiochip9", Err: syscall.ENOENT}, []string{"no GPIO chip", "gpiodetect"}},
		{gpiocdev.ErrNotCharacterDevice, []string{"not a GPIO character device"}},
		{gpiocdev.ErrInvalidOffset, []string{"has no line 5", "gpioinfo"}},
		{syscall.EBUSY, []string{"in use by another program", "gpioinfo"}},
		{gpiocdev.ErrUapiIncompatibility{Feature: "debounce", AbiVersion: 1}, []string{"too old for debounce", "kernel_debounce"}},
		{errors.New("other"), []string{"gpiochip0 line 5: other"}},
	} {
		sim := newChipSim()
		sim.fail[5] = tc.err
		_, err := open(&Options{Lines: []Line{
			{Control: button.Scan, Chip: "gpiochip0", Offset: 4},
			{Control: button.Photo, Chip: "gpiochip0", Offset: 5},
		}}, sim.request)
		if err == nil {
			t.Fatalf("%v: open succeeded", tc.err)
		}
		if !errors.Is(err, tc.err) {
			t.Errorf("%v: not wrapped: %v", tc.err, err)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q lacks %q", err, w)
			}
		}
		if sim.lines[4].closes != 1 {
			t.Errorf("%v: the line requested before the failure was not released", tc.err)
		}
	}
}

func TestRealChipErrors(t *testing.T) {
	// The real go-gpiocdev path, on devices that are not GPIO chips.
	for chip, want := range map[string]string{
		"gpiochip-acbridge-test-none": "no GPIO chip",
		"/dev/null":                   "not a GPIO character device",
	} {
		_, err := Open(&Options{Lines: []Line{{Control: button.Scan, Chip: chip, Offset: 0}}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want %q", chip, err, want)
		}
		_, err = OpenIndicator(&IndicatorOptions{Chip: chip})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("OpenIndicator(%s): %v, want %q", chip, err, want)
		}
	}
}
