package button

import (
	"context"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"
)

// Defaults for Options.
const (
	DefaultDebounce  = 30 * time.Millisecond
	DefaultLongPress = time.Second
	DefaultQueueLen  = 64
)

// Options configures a Debouncer. The zero value, or a nil *Options, means
// the documented defaults.
type Options struct {
	// Debounce is how long changes of a control are held back after a
	// reported change. Zero means DefaultDebounce; negative disables it.
	Debounce time.Duration
	// LongPress is how long Cancel must be held before a Long event. Zero
	// means DefaultLongPress; negative disables long presses.
	LongPress time.Duration
	// QueueLen bounds the events waiting for Read; when it is full the
	// oldest is dropped. Zero means DefaultQueueLen.
	QueueLen int
	// Clock defaults to SystemClock, Logger to one that discards.
	Clock  Clock
	Logger *slog.Logger
}

// Debouncer turns raw level changes reported by a backend into Events, and
// implements Source for it. It is exported for the backends in the
// subpackages and for fakes; applications use a backend's Source.
//
// Debouncing is leading-edge: the first change of a control is reported at
// once, further changes are ignored for the debounce period, and when it ends
// the control's level is reported again if it differs from the last one
// reported. So a press costs no latency, and a keypad that sends key-down and
// key-up a few milliseconds apart still yields both events instead of none.
// Noise filtering of raw GPIO lines, where a glitch should not count as a
// press, is the kernel's job (gpio.Line.KernelDebounce).
type Debouncer struct {
	debounce  time.Duration
	longPress time.Duration
	queueLen  int
	clock     Clock
	log       *slog.Logger

	mu       sync.Mutex
	controls map[string]*control
	queue    []Event
	dropped  int
	err      error // set by Fail; returned once the queue is drained
	closed   bool
	timers   sync.WaitGroup // AfterFunc callbacks scheduled and not yet stopped or finished

	ready chan struct{} // capacity 1: the queue may be non-empty, or err was set
	done  chan struct{} // closed by Close
}

// control is the state of one named control.
type control struct {
	name   string
	inputs map[int]bool // raw level per input (key code, line); the control is pressed while any is
	raw    bool
	rawAt  time.Time
	stable bool // last level reported

	// gen invalidates a debounce or long-press callback that fired while it
	// was being stopped: each callback carries the gen it was scheduled with.
	gen       uint64
	lockTimer Timer // non-nil while changes are held back
	longTimer Timer // non-nil while waiting for a long press
}

// setInput records one input's raw level and returns the control's: pressed
// while any of its inputs is.
func (c *control) setInput(input int, pressed bool) bool {
	if pressed {
		c.inputs[input] = true
	} else {
		delete(c.inputs, input)
	}
	return len(c.inputs) > 0
}

var _ Source = (*Debouncer)(nil)

// NewDebouncer returns a Debouncer; o may be nil.
func NewDebouncer(o *Options) *Debouncer {
	if o == nil {
		o = &Options{}
	}
	d := &Debouncer{
		debounce:  o.Debounce,
		longPress: o.LongPress,
		queueLen:  o.QueueLen,
		clock:     o.Clock,
		log:       o.Logger,
		controls:  make(map[string]*control),
		ready:     make(chan struct{}, 1),
		done:      make(chan struct{}),
	}
	if d.debounce == 0 {
		d.debounce = DefaultDebounce
	}
	if d.longPress == 0 {
		d.longPress = DefaultLongPress
	}
	if d.queueLen <= 0 {
		d.queueLen = DefaultQueueLen
	}
	if d.clock == nil {
		d.clock = SystemClock{}
	}
	if d.log == nil {
		d.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return d
}

// Set reports the raw level of input 0 of a control.
func (d *Debouncer) Set(name string, pressed bool) { d.SetInput(name, 0, pressed) }

// SetInput reports the raw level of one input of a control. A control fed by
// several inputs (two keys, two lines) is pressed while any of them is.
// Calls after Close or Fail are ignored.
func (d *Debouncer) SetInput(name string, input int, pressed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.err != nil {
		return
	}
	c := d.control(name)
	level := c.setInput(input, pressed)
	if level == c.raw {
		return
	}
	now := d.clock.Now()
	c.raw, c.rawAt = level, now
	if c.lockTimer != nil {
		return // the end of the debounce period reconciles
	}
	d.report(c, now)
}

// Seed sets the level of an input without an event, for a control already
// held when the backend opened (a button held at boot is not a press).
func (d *Debouncer) Seed(name string, input int, pressed bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.err != nil {
		return
	}
	c := d.control(name)
	c.raw = c.setInput(input, pressed)
	c.stable = c.raw
}

// Tap reports a complete press of a control at once, without debouncing:
// press, a Long event when long is set, then release. It is for inputs that
// have no release of their own, such as a key typed on a terminal.
func (d *Debouncer) Tap(name string, long bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.err != nil {
		return
	}
	c := d.control(name)
	d.stopTimers(c)
	now := d.clock.Now()
	if !c.stable {
		d.push(Event{Control: name, Pressed: true, At: now})
	}
	if long {
		d.push(Event{Control: name, Pressed: true, Long: true, At: now})
	}
	d.push(Event{Control: name, At: now})
	clear(c.inputs)
	c.raw, c.stable = false, false
}

// Fail ends the Source: held controls are released (so no consumer waits
// for a release that never comes), and once the events queued before are
// read, Read returns err (ErrDisconnected if err is nil). Only the first
// Fail counts.
func (d *Debouncer) Fail(err error) {
	if err == nil {
		err = ErrDisconnected
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || d.err != nil {
		return
	}
	now := d.clock.Now()
	names := make([]string, 0, len(d.controls))
	for name := range d.controls {
		names = append(names, name)
	}
	sort.Strings(names) // a stable order of the releases
	for _, name := range names {
		c := d.controls[name]
		d.stopTimers(c)
		if c.stable {
			d.push(Event{Control: name, At: now})
		}
		clear(c.inputs)
		c.raw, c.stable = false, false
	}
	d.err = err
	d.signal()
}

// Read returns the next event. After Fail it returns the remaining events,
// then the error given to Fail; after Close, ErrClosed.
func (d *Debouncer) Read(ctx context.Context) (Event, error) {
	for {
		d.mu.Lock()
		switch {
		case d.closed:
			d.mu.Unlock()
			return Event{}, ErrClosed
		case len(d.queue) > 0:
			ev := d.queue[0]
			d.queue = d.queue[1:]
			if len(d.queue) > 0 {
				d.signal() // wake another concurrent reader
			} else {
				d.dropped = 0
			}
			d.mu.Unlock()
			return ev, nil
		case d.err != nil:
			err := d.err
			d.signal() // every reader gets the error
			d.mu.Unlock()
			return Event{}, err
		}
		d.mu.Unlock()
		select {
		case <-ctx.Done():
			return Event{}, ctx.Err()
		case <-d.done:
		case <-d.ready:
		}
	}
}

// Close stops all timers, waits for callbacks already running, and makes
// every Read return ErrClosed. It is safe to call twice.
func (d *Debouncer) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	for _, c := range d.controls {
		d.stopTimers(c)
	}
	d.queue = nil
	close(d.done)
	d.mu.Unlock()
	d.timers.Wait()
	return nil
}

func (d *Debouncer) control(name string) *control {
	c, ok := d.controls[name]
	if !ok {
		c = &control{name: name, inputs: make(map[int]bool)}
		d.controls[name] = c
	}
	return c
}

// report makes the raw level the reported one. Called with d.mu held.
func (d *Debouncer) report(c *control, at time.Time) {
	c.stable = c.raw
	d.push(Event{Control: c.name, Pressed: c.stable, At: at})
	c.gen++
	if d.debounce > 0 {
		c.lockTimer = d.after(d.debounce, c, c.gen, d.unlock)
	}
	if c.longTimer != nil {
		d.stop(c.longTimer)
		c.longTimer = nil
	}
	if c.stable && c.name == Cancel && d.longPress > 0 {
		c.longTimer = d.after(d.longPress, c, c.gen, d.long)
	}
}

// unlock ends a debounce period. Called with d.mu held.
func (d *Debouncer) unlock(c *control) {
	c.lockTimer = nil
	if c.raw != c.stable {
		d.report(c, c.rawAt)
	}
}

// long reports a long press. Called with d.mu held.
func (d *Debouncer) long(c *control) {
	c.longTimer = nil
	if c.stable {
		d.push(Event{Control: c.name, Pressed: true, Long: true, At: d.clock.Now()})
	}
}

// after schedules f(c) under d.mu, unless c.gen has moved on by then (the
// timer was replaced or stopped while it fired) or the Debouncer closed.
func (d *Debouncer) after(dur time.Duration, c *control, gen uint64, f func(*control)) Timer {
	d.timers.Add(1)
	return d.clock.AfterFunc(dur, func() {
		defer d.timers.Done()
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.closed || d.err != nil || c.gen != gen {
			return
		}
		f(c)
	})
}

// stop cancels a timer from after; a callback already running finishes on
// its own and calls Done itself.
func (d *Debouncer) stop(t Timer) {
	if t.Stop() {
		d.timers.Done()
	}
}

func (d *Debouncer) stopTimers(c *control) {
	c.gen++
	if c.lockTimer != nil {
		d.stop(c.lockTimer)
		c.lockTimer = nil
	}
	if c.longTimer != nil {
		d.stop(c.longTimer)
		c.longTimer = nil
	}
}

// push queues ev, dropping the oldest event when the queue is full: a reader
// that fell behind gets the most recent presses. Called with d.mu held.
func (d *Debouncer) push(ev Event) {
	if len(d.queue) >= d.queueLen {
		d.queue = d.queue[1:]
		d.dropped++
		if d.dropped == 1 {
			d.log.Warn("button: events not read in time, dropping the oldest", "queue", d.queueLen)
		}
	}
	d.queue = append(d.queue, ev)
	d.log.Debug("button: event", "control", ev.Control, "pressed", ev.Pressed, "long", ev.Long)
	d.signal()
}

func (d *Debouncer) signal() {
	select {
	case d.ready <- struct{}{}:
	default:
	}
}
