package gpio

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/button"
)

// DefaultBlink is how long a blinking LED stays on, then off.
const DefaultBlink = 500 * time.Millisecond

// IndicatorOptions configures the "armed" LED on a GPIO output line.
type IndicatorOptions struct {
	Chip   string
	Offset int
	// ActiveLow: the LED lights when the line is low (wired to the supply).
	ActiveLow bool
	// Blink is the on time and the off time of LightBlink; zero means
	// DefaultBlink.
	Blink time.Duration
	// Consumer labels the line in gpioinfo; "" means DefaultConsumer.
	Consumer string
	Clock    button.Clock
	Logger   *slog.Logger
}

// Indicator drives an LED on a GPIO line. It implements button.Indicator.
type Indicator struct {
	l     line
	blink time.Duration
	clock button.Clock
	log   *slog.Logger

	mu     sync.Mutex
	state  button.Light
	level  int
	gen    uint64 // invalidates a blink callback that fired while being stopped
	timer  button.Timer
	closed bool
	warned bool
	timers sync.WaitGroup // blink callbacks scheduled and not yet stopped or finished
}

var _ button.Indicator = (*Indicator)(nil)

// OpenIndicator requests the line as an output, LED off.
func OpenIndicator(o *IndicatorOptions) (*Indicator, error) { return openIndicator(o, requestLine) }

func openIndicator(o *IndicatorOptions, request requestFunc) (*Indicator, error) {
	if o == nil || o.Chip == "" || o.Offset < 0 {
		return nil, errors.New("button/gpio: the LED needs a chip and a line offset (0 or more)")
	}
	if o.Blink < 0 {
		return nil, fmt.Errorf("button/gpio: negative LED blink time %v", o.Blink)
	}
	consumer := o.Consumer
	if consumer == "" {
		consumer = DefaultConsumer
	}
	l, err := request(o.Chip, o.Offset, outputOptions(o, consumer)...)
	if err != nil {
		return nil, requestError(o.Chip, o.Offset, err)
	}
	i := &Indicator{l: l, blink: o.Blink, clock: o.Clock, log: o.Logger}
	if i.blink == 0 {
		i.blink = DefaultBlink
	}
	if i.clock == nil {
		i.clock = button.SystemClock{}
	}
	if i.log == nil {
		i.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return i, nil
}

// Set shows l. Setting the current state again changes nothing, so a
// blinking LED keeps its rhythm.
func (i *Indicator) Set(l button.Light) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return button.ErrClosed
	}
	if l != button.LightOff && l != button.LightOn && l != button.LightBlink {
		return fmt.Errorf("button/gpio: unknown light %d", int(l))
	}
	if l == i.state {
		return nil
	}
	i.stopBlink()
	i.state = l
	if l == button.LightOff {
		return i.setLevel(0)
	}
	if l == button.LightBlink {
		i.schedule()
	}
	return i.setLevel(1)
}

// Close turns the LED off and releases the line. It is safe to call twice.
func (i *Indicator) Close() error {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return nil
	}
	i.closed = true
	i.stopBlink()
	err := i.setLevel(0)
	i.mu.Unlock()
	i.timers.Wait()
	return errors.Join(err, i.l.Close())
}

// schedule arranges the next blink toggle. Called with i.mu held.
func (i *Indicator) schedule() {
	gen := i.gen
	i.timers.Add(1)
	i.timer = i.clock.AfterFunc(i.blink, func() {
		defer i.timers.Done()
		i.mu.Lock()
		defer i.mu.Unlock()
		if i.closed || gen != i.gen {
			return
		}
		if err := i.setLevel(1 - i.level); err != nil && !i.warned {
			// Keep blinking: one failed write should not freeze the prompt.
			i.warned = true
			i.log.Warn("button/gpio: LED write failed", "err", err)
		}
		i.schedule()
	})
}

func (i *Indicator) stopBlink() {
	i.gen++
	if i.timer != nil {
		if i.timer.Stop() {
			i.timers.Done()
		}
		i.timer = nil
	}
}

func (i *Indicator) setLevel(v int) error {
	if err := i.l.SetValue(v); err != nil {
		return fmt.Errorf("button/gpio: set LED: %w", err)
	}
	i.level = v
	return nil
}
