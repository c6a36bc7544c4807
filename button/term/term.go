package term

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/agentcall/acbridge/button"
)

// Action is what a key stroke does to its control.
type Action int

const (
	Tap     Action = iota // press and release
	Toggle                // press on one stroke, release on the next
	LongTap               // press, long press, release: a long Cancel
)

func (a Action) String() string {
	switch a {
	case Tap:
		return "tap"
	case Toggle:
		return "toggle"
	case LongTap:
		return "long tap"
	}
	return fmt.Sprintf("Action(%d)", int(a))
}

// Binding ties a key to a control.
type Binding struct {
	Control string
	Action  Action
}

// DefaultKeys returns the default key map (a new map each call).
func DefaultKeys() map[rune]Binding {
	return map[rune]Binding{
		's': {button.Scan, Tap},
		'p': {button.Photo, Tap},
		't': {button.Talk, Toggle},
		'c': {button.Cancel, Tap},
		'C': {button.Cancel, LongTap},
	}
}

// Describe returns a one-line key help, such as "C long cancel · c cancel · p photo".
func Describe(keys map[rune]Binding) string {
	var parts []string
	for r, b := range keys {
		var what string
		switch b.Action {
		case Toggle:
			what = b.Control + " (toggle)"
		case LongTap:
			what = "long " + b.Control
		default:
			what = b.Control
		}
		parts = append(parts, string(r)+" "+what)
	}
	sort.Strings(parts)
	return strings.Join(parts, " · ")
}

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Keys maps typed characters to controls; nil means DefaultKeys().
	Keys map[rune]Binding
	// Raw makes single key strokes act without Enter when the input is a
	// terminal; it is ignored for anything else.
	Raw bool
	// Button supplies the clock, the logger and the queue length; its
	// Debounce is ignored. LongPress applies to toggled controls.
	Button button.Options
	// Unbound, if set, is called once, from the reading goroutine, at the
	// first character typed that is no key and not white space (New
	// only): a person typing a sentence to keys that take single letters
	// is told where their words went; keys is Describe of the keys. It
	// must not block.
	Unbound func(keys string)
}

// Source reads key strokes from an io.Reader. It implements button.Source.
//
// Close interrupts a pending read when the input can be interrupted: an
// *os.File (terminal, pipe, FIFO; read through a private duplicate of its
// descriptor, so the caller's file stays open and unchanged) or anything with
// SetReadDeadline. Any other reader must return on its own, at EOF for
// instance, for Close to return.
type Source struct {
	d       *button.Debouncer
	keys    map[rune]Binding
	in      io.Reader
	stop    func()       // interrupts a pending read
	restore func() error // undoes raw mode and descriptor flags, then releases the duplicate
	log     *slog.Logger

	toggled map[string]bool // touched by the reader goroutine only
	unbound func(string)    // Options.Unbound; nil once called
	texts   chan string     // FromLines: lines that are not keys
	closing atomic.Bool
	once    sync.Once
	wg      sync.WaitGroup
	err     error
}

var _ button.Source = (*Source)(nil)

// New starts reading r.
func New(r io.Reader, o *Options) (*Source, error) {
	if r == nil {
		return nil, errors.New("button/term: no input")
	}
	s, err := newSource(o)
	if err != nil {
		return nil, err
	}
	s.in = r
	if f, ok := r.(*os.File); ok {
		in, restore, raw, err := prepare(f, o != nil && o.Raw)
		if err != nil {
			s.d.Close()
			return nil, fmt.Errorf("button/term: %s: %w", f.Name(), err)
		}
		s.in, s.restore = in, restore
		s.stop = func() { in.SetReadDeadline(time.Unix(1, 0)) }
		s.log.Info("button/term: reading keys", "input", f.Name(), "raw", raw, "keys", Describe(s.keys))
	} else if dl, ok := r.(interface{ SetReadDeadline(time.Time) error }); ok {
		s.stop = func() { dl.SetReadDeadline(time.Unix(1, 0)) }
	}
	s.wg.Add(1)
	go s.run()
	return s, nil
}

// newSource checks o and returns a Source that reads nothing yet.
func newSource(o *Options) (*Source, error) {
	if o == nil {
		o = &Options{}
	}
	keys := o.Keys
	if keys == nil {
		keys = DefaultKeys()
	}
	if len(keys) == 0 {
		return nil, errors.New("button/term: no keys mapped to controls")
	}
	copied := make(map[rune]Binding, len(keys))
	for k, b := range keys {
		if err := button.CheckControl(b.Control); err != nil {
			return nil, fmt.Errorf("button/term: key %q: %w", k, err)
		}
		if b.Action < Tap || b.Action > LongTap {
			return nil, fmt.Errorf("button/term: key %q: unknown action %d", k, int(b.Action))
		}
		copied[k] = b
	}
	bo := o.Button
	bo.Debounce = -1
	log := bo.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Source{
		unbound: o.Unbound,
		d:       button.NewDebouncer(&bo),
		keys:    copied,
		stop:    func() {},
		restore: func() error { return nil },
		log:     log,
		toggled: make(map[string]bool),
	}, nil
}

// Read returns the next event; once the input has ended, an error wrapping
// button.ErrDisconnected.
func (s *Source) Read(ctx context.Context) (button.Event, error) { return s.d.Read(ctx) }

// Close stops reading and restores the terminal. It is safe to call twice.
func (s *Source) Close() error {
	s.once.Do(func() {
		s.closing.Store(true)
		s.d.Close()
		s.stop()
		s.wg.Wait()
		s.err = s.restore()
	})
	return s.err
}

func (s *Source) run() {
	defer s.wg.Done()
	br := bufio.NewReader(s.in)
	for {
		r, _, err := br.ReadRune()
		if err != nil {
			if !s.closing.Load() {
				if errors.Is(err, io.EOF) {
					s.d.Fail(fmt.Errorf("button/term: input ended: %w", button.ErrDisconnected))
				} else {
					s.d.Fail(fmt.Errorf("button/term: read: %w: %w", button.ErrDisconnected, err))
				}
			}
			return
		}
		if b, ok := s.keys[r]; ok {
			s.act(b)
		} else if s.unbound != nil && !unicode.IsSpace(r) { // Enter is no stroke
			s.unbound(Describe(s.keys))
			s.unbound = nil
		}
	}
}

// act applies one stroke of a bound key; only the reading goroutine calls it.
func (s *Source) act(b Binding) {
	switch b.Action {
	case Tap:
		s.d.Tap(b.Control, false)
	case LongTap:
		s.d.Tap(b.Control, true)
	case Toggle:
		s.toggled[b.Control] = !s.toggled[b.Control]
		s.d.Set(b.Control, s.toggled[b.Control])
	}
}
