package setup

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/warthog618/go-gpiocdev"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
)

// input is one key of a keypad or one GPIO line: what a learned button
// becomes in the configuration.
type input struct {
	source string // "evdev" or "gpio"
	device string // evdev: the device path
	key    uint16
	chip   string // gpio: the chip as configured
	line   int
}

func (in input) String() string {
	if in.source == "gpio" {
		return fmt.Sprintf("GPIO line %d of %s", in.line, in.chip)
	}
	return fmt.Sprintf("%s on %s", evdev.KeyName(in.key), in.device)
}

// button returns the configuration of control on in. GPIO buttons are
// taken as wired between the line and ground, the usual wiring, which is
// how the lines were watched.
func (in input) button(control string) config.Button {
	if in.source == "gpio" {
		return config.Button{Control: control, Source: "gpio", Chip: in.chip, Line: in.line, ActiveLow: true, Bias: "pull-up"}
	}
	return config.Button{Control: control, Source: "evdev", Device: in.device, Key: evdev.KeyName(in.key)}
}

// watcher watches every key of the keypads and every free line of one GPIO
// chip through one debouncer, whose control names identify the inputs.
type watcher struct {
	d      *button.Debouncer
	mu     sync.Mutex
	inputs map[string]input // by debouncer control name
	files  []*os.File
	lines  []*gpiocdev.Line
	names  []string // what is watched, for the operator
	wg     sync.WaitGroup
	events chan button.Event
	once   sync.Once
}

// watch opens the keypads and the lines of chip ("" for none). A keypad
// that cannot be opened is left out and said so in notes; the caller
// decides whether watching nothing is an error.
func watch(keypads []string, chip string, chips gpio.ChipLister) (w *watcher, notes []string) {
	w = &watcher{
		// The learner debounces itself (settle), so that a press right
		// after the previous button's is never held back by a lock.
		d:      button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1}),
		inputs: map[string]input{},
		events: make(chan button.Event, 16),
	}
	for _, path := range keypads {
		// O_NONBLOCK: a FIFO without a writer must not block the open;
		// the file is served by Go's poller, so Close ends its read.
		f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			notes = append(notes, fmt.Sprintf("keypad %s cannot be read: %v", path, unwrapPath(err)))
			continue
		}
		w.files = append(w.files, f)
		w.names = append(w.names, path)
		w.wg.Add(1)
		go w.readKeypad(f, path)
	}
	if chip != "" {
		n, note := w.watchChip(chip, chips)
		if note != "" {
			notes = append(notes, note)
		}
		if n > 0 {
			w.names = append(w.names, fmt.Sprintf("%d GPIO lines of %s", n, chip))
		}
	}
	w.wg.Add(1)
	go w.pump()
	return w, notes
}

func (w *watcher) readKeypad(f *os.File, path string) {
	defer w.wg.Done()
	br := bufio.NewReaderSize(f, 64*evdev.RecordSize)
	rec := make([]byte, evdev.RecordSize)
	for {
		if _, err := io.ReadFull(br, rec); err != nil {
			return // closed, unplugged or the writer went away: no more presses from it
		}
		ev := evdev.Decode(rec)
		if ev.Type != evdev.EvKey || ev.Value > 1 {
			continue // 2 is autorepeat of a held key
		}
		id := fmt.Sprintf("evdev\x00%s\x00%d", path, ev.Code)
		w.remember(id, input{source: "evdev", device: path, key: ev.Code})
		w.d.Set(id, ev.Value == 1)
	}
}

// watchChip requests every line of chip that no one else holds as an
// input with a pull-up and edge events; it returns how many it watches.
func (w *watcher) watchChip(chip string, chips gpio.ChipLister) (int, string) {
	path, err := gpio.ResolveChip(chip, chips)
	if err != nil {
		return 0, err.Error()
	}
	if !strings.HasPrefix(path, "/") {
		path = "/dev/" + path
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	c, err := gpiocdev.NewChip(path)
	if err != nil {
		return 0, fmt.Sprintf("GPIO chip %s cannot be opened: %v", chip, err)
	}
	n := c.Lines()
	c.Close()
	busy := 0
	for off := range n {
		id := fmt.Sprintf("gpio\x00%s\x00%d", chip, off)
		w.remember(id, input{source: "gpio", chip: chip, line: off})
		l, err := gpiocdev.RequestLine(path, off, gpiocdev.AsInput, gpiocdev.AsActiveLow, gpiocdev.WithPullUp,
			gpiocdev.WithBothEdges, gpiocdev.WithConsumer("acbridge-setup"),
			gpiocdev.WithEventHandler(func(ev gpiocdev.LineEvent) {
				w.d.Set(id, ev.Type == gpiocdev.LineEventRisingEdge)
			}))
		if err != nil {
			busy++ // held by a kernel driver (I2C, SPI, UART) or another program
			continue
		}
		if v, err := l.Value(); err == nil {
			w.d.Seed(id, 0, v == 1) // a line already low at the start is not a press
		}
		w.lines = append(w.lines, l)
	}
	note := ""
	if busy > 0 {
		note = fmt.Sprintf("%d of the %d lines of %s are in use elsewhere and not watched", busy, n, chip)
	}
	return len(w.lines), note
}

// remember names an input the first time it is seen.
func (w *watcher) remember(id string, in input) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.inputs[id]; !ok {
		w.inputs[id] = in
	}
}

func (w *watcher) lookup(id string) input {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.inputs[id]
}

// pump moves the debounced events to a channel the learner selects on.
func (w *watcher) pump() {
	defer w.wg.Done()
	defer close(w.events)
	for {
		ev, err := w.d.Read(context.Background())
		if err != nil {
			return
		}
		w.events <- ev
	}
}

// errNoPress is wrapped by the error of a button not pressed in time.
var errNoPress = errors.New("no button was pressed")

// next waits up to wait for a press that starts after since and is not one
// of taken; a press of a taken input is reported through busy and waited
// past.
func (w *watcher) next(ctx context.Context, since time.Time, wait time.Duration, taken map[string]string, busy func(string, input)) (string, input, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	for {
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", input{}, errNoPress
			}
			return "", input{}, ctx.Err()
		case ev, ok := <-w.events:
			if !ok {
				return "", input{}, errNoPress
			}
			if !ev.Pressed || ev.Long || ev.At.Before(since) {
				continue
			}
			in := w.lookup(ev.Control)
			if c, dup := taken[ev.Control]; dup {
				busy(c, in)
				continue
			}
			return ev.Control, in, nil
		}
	}
}

// settle absorbs the bounce of a learned press: it waits until the input
// id is released and has then been still for button.DefaultDebounce (up
// to wait in all), so that neither its bounce nor its release is taken for
// the next button.
func (w *watcher) settle(ctx context.Context, id string, wait time.Duration) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	released := false
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-quiet.C:
			if released {
				return
			}
		case ev, ok := <-w.events:
			if !ok {
				return
			}
			if ev.Control != id {
				continue
			}
			released = !ev.Pressed
			quiet.Reset(button.DefaultDebounce)
		}
	}
}

// Close releases the keypads and lines and waits for their readers. It is
// safe to call twice.
func (w *watcher) Close() {
	w.once.Do(func() {
		for _, f := range w.files {
			f.Close()
		}
		for _, l := range w.lines {
			l.Close()
		}
		w.d.Close()
		// pump may be blocked sending: drain until it has closed events.
		for range w.events {
		}
		w.wg.Wait()
	})
}

// keypads lists the input devices a button may be on: the stable links of
// dir (/dev/input/by-id), which name the device wherever it is plugged.
func keypads(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if strings.Contains(e.Name(), "-event-") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
