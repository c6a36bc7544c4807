package gpio

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/warthog618/go-gpiocdev"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

func openLED(t *testing.T, o IndicatorOptions) (*Indicator, *fakeLine, *buttontest.Clock, *chipSim) {
	t.Helper()
	sim := newChipSim()
	clk := buttontest.NewClock(t0)
	o.Chip, o.Offset, o.Clock = "gpiochip0", 22, clk
	led, err := openIndicator(&o, sim.request)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { led.Close() })
	return led, sim.lines[22], clk, sim
}

func (l *fakeLine) history() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]int(nil), l.values...)
}

func TestIndicator(t *testing.T) {
	led, l, clk, sim := openLED(t, IndicatorOptions{ActiveLow: true})
	if want := outputOptions(&IndicatorOptions{ActiveLow: true}, DefaultConsumer); !reflect.DeepEqual(sim.opts[22], want) {
		t.Fatalf("requested %#v", sim.opts[22])
	}
	if _, ok := sim.handlers[22]; ok {
		t.Fatal("an output line got an event handler")
	}

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(led.Set(button.LightOn))
	must(led.Set(button.LightOff))
	must(led.Set(button.LightBlink))
	for i := 0; i < 4; i++ {
		clk.Advance(DefaultBlink)
	}
	must(led.Set(button.LightBlink)) // again: keeps the rhythm
	clk.Advance(DefaultBlink / 2)
	if got, want := l.history(), []int{1, 0, 1, 0, 1, 0, 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("levels %v, want %v", got, want)
	}
	must(led.Set(button.LightOff))
	clk.Advance(10 * DefaultBlink)
	if got := l.history(); got[len(got)-1] != 0 || len(got) != 8 {
		t.Fatalf("blinking went on after off: %v", got)
	}
	if clk.Pending() != 0 {
		t.Fatalf("%d timers pending", clk.Pending())
	}
	if err := led.Set(button.Light(9)); err == nil {
		t.Fatal("Set accepted Light(9)")
	}

	must(led.Set(button.LightBlink))
	must(led.Close())
	must(led.Close())
	if l.closes != 1 {
		t.Fatalf("line closed %d times", l.closes)
	}
	if got := l.history(); got[len(got)-1] != 0 {
		t.Fatalf("LED left on after Close: %v", got)
	}
	if clk.Pending() != 0 {
		t.Fatalf("%d timers pending after Close", clk.Pending())
	}
	if err := led.Set(button.LightOn); !errors.Is(err, button.ErrClosed) {
		t.Fatalf("Set after Close: %v", err)
	}
}

func TestIndicatorBlinkTime(t *testing.T) {
	led, l, clk, _ := openLED(t, IndicatorOptions{Blink: 100 * time.Millisecond})
	led.Set(button.LightBlink)
	clk.Advance(350 * time.Millisecond)
	if got := l.history(); len(got) != 4 {
		t.Fatalf("levels %v after 350ms at 100ms", got)
	}
}

func TestIndicatorWriteFailure(t *testing.T) {
	led, l, clk, _ := openLED(t, IndicatorOptions{})
	l.failSet = errors.New("EIO")
	if err := led.Set(button.LightOn); err == nil || !strings.HasPrefix(err.Error(), "button/gpio: set LED") {
		t.Fatalf("Set: %v", err)
	}
	led.Set(button.LightBlink)
	clk.Advance(3 * DefaultBlink) // failed writes keep the timer going, logged once
	if clk.Pending() != 1 {
		t.Fatalf("blink stopped after a failed write")
	}
}

func TestIndicatorValidates(t *testing.T) {
	for _, o := range []*IndicatorOptions{nil, {}, {Chip: "gpiochip0", Offset: -1}, {Chip: "gpiochip0", Blink: -time.Second}} {
		if _, err := openIndicator(o, newChipSim().request); err == nil {
			t.Errorf("openIndicator(%+v) succeeded", o)
		}
	}
	sim := newChipSim()
	sim.fail[3] = gpiocdev.ErrInvalidOffset
	if _, err := openIndicator(&IndicatorOptions{Chip: "gpiochip0", Offset: 3}, sim.request); err == nil || !strings.Contains(err.Error(), "gpioinfo") {
		t.Errorf("openIndicator: %v", err)
	}
}
