package gpio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/warthog618/go-gpiocdev"

	"github.com/agentcall/acbridge/button"
)

// Line is one button on a GPIO line.
type Line struct {
	Control string
	// Chip is "gpiochip0", "/dev/gpiochip0", a symbolic link to one, a
	// chip's label ("pinctrl-rp1") or Header.
	Chip   string
	Offset int
	// ActiveLow: the button pulls the line to ground when pressed (the
	// usual wiring, with BiasPullUp).
	ActiveLow bool
	Bias      Bias
	// KernelDebounce, if set, has the kernel ignore pulses shorter than
	// this (Linux 5.10 or later); at most 1s.
	KernelDebounce time.Duration
}

// Options configures a Source.
type Options struct {
	Lines []Line
	// Consumer labels the lines in gpioinfo; "" means DefaultConsumer.
	Consumer string
	// Button configures debouncing, long presses, clock and logger.
	Button button.Options
}

// line is what the Source and the Indicator need of a requested line;
// *gpiocdev.Line has it, and tests substitute a fake.
type line interface {
	Value() (int, error)
	SetValue(int) error
	Close() error
}

// requestFunc requests one line, as gpiocdev.RequestLine does.
type requestFunc func(chip string, offset int, opts ...gpiocdev.LineReqOption) (line, error)

// requestLine is the real requestFunc. It resolves labels and "header"
// (ResolveChip), then symbolic links, because go-gpiocdev checks the
// device with Lstat and would reject a udev link such as
// /dev/gpiochip-buttons.
func requestLine(chip string, offset int, opts ...gpiocdev.LineReqOption) (line, error) {
	path, err := ResolveChip(chip, SystemChips{})
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(path, "/") {
		path = "/dev/" + path
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	l, err := gpiocdev.RequestLine(resolved, offset, opts...)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return l, nil
}

// Source reads buttons on GPIO lines. It implements button.Source.
type Source struct {
	d     *button.Debouncer
	lines []line
	once  sync.Once
	err   error
}

var _ button.Source = (*Source)(nil)

// Open requests every line as an input with edge events.
func Open(o *Options) (*Source, error) { return open(o, requestLine) }

func open(o *Options, request requestFunc) (*Source, error) {
	if o == nil || len(o.Lines) == 0 {
		return nil, errors.New("button/gpio: no lines configured")
	}
	consumer := o.Consumer
	if consumer == "" {
		consumer = DefaultConsumer
	}
	type key struct {
		chip   string
		offset int
	}
	seen := make(map[key]bool)
	reqs := make([][]gpiocdev.LineReqOption, len(o.Lines))
	for i, l := range o.Lines {
		if err := button.CheckControl(l.Control); err != nil {
			return nil, fmt.Errorf("button/gpio: %s line %d: %w", truncate(l.Chip), l.Offset, err)
		}
		if l.Chip == "" || l.Offset < 0 {
			return nil, fmt.Errorf("button/gpio: %s needs a chip and a line offset (0 or more)", l.Control)
		}
		k := key{strings.TrimPrefix(l.Chip, "/dev/"), l.Offset}
		if seen[k] {
			return nil, fmt.Errorf("button/gpio: %s line %d is configured twice", truncate(l.Chip), l.Offset)
		}
		seen[k] = true
		opts, err := inputOptions(l, consumer)
		if err != nil {
			return nil, err
		}
		reqs[i] = opts
	}
	log := o.Button.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Source{d: button.NewDebouncer(&o.Button)}
	for i, l := range o.Lines {
		ln, err := request(l.Chip, l.Offset, append(reqs[i], gpiocdev.WithEventHandler(s.handler(l.Control, i)))...)
		if err != nil {
			s.Close()
			return nil, requestError(l.Chip, l.Offset, err)
		}
		s.lines = append(s.lines, ln)
		// A button held while acbridge starts is not a press.
		if v, err := ln.Value(); err == nil {
			s.d.Seed(l.Control, i, v == 1)
		}
		log.Info("button/gpio: reading line", "control", l.Control, "chip", l.Chip, "offset", l.Offset,
			"activeLow", l.ActiveLow, "bias", l.Bias.String(), "kernelDebounce", l.KernelDebounce)
	}
	return s, nil
}

// handler maps the kernel's edges to levels. Edges are reported in terms of
// the active state, so with ActiveLow a falling voltage is a rising edge.
func (s *Source) handler(control string, input int) gpiocdev.EventHandler {
	return func(ev gpiocdev.LineEvent) {
		s.d.SetInput(control, input, ev.Type == gpiocdev.LineEventRisingEdge)
	}
}

// Read returns the next event.
func (s *Source) Read(ctx context.Context) (button.Event, error) { return s.d.Read(ctx) }

// Close releases the lines and waits for their event handlers. It is safe
// to call twice.
func (s *Source) Close() error {
	s.once.Do(func() {
		s.d.Close()
		var errs []error
		for _, l := range s.lines {
			errs = append(errs, l.Close())
		}
		s.err = errors.Join(errs...)
	})
	return s.err
}
