// Package keyboard reads NFC/RFID readers that act as a USB keyboard: they
// type the tag's UID and Enter. The device is grabbed (EVIOCGRAB) so that
// no keystroke reaches the console or the kiosk page; lines are read only
// inside an armed window and everything typed outside one is swallowed.
// The typed UID is aliased exactly like a PC/SC one (see parseUID). A
// reader unplugged and plugged back in is opened and grabbed again.
package keyboard

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/nfc"
)

// Options configures Open. Path, Aliaser and Scope are required.
type Options struct {
	// Path is the input device, preferably a stable
	// /dev/input/by-id/usb-…-event-kbd link.
	Path    string
	Aliaser nfc.Aliaser
	Scope   string
	// Logger receives diagnostics (never a UID); nil discards them.
	Logger *slog.Logger
	// OnState, if set, is told of each status change, from the goroutine
	// that made it; it must not block or call Close.
	OnState func(nfc.Status)
	// Retry is how often a reader that is gone (unplugged) is looked for
	// again; zero means 1 s.
	Retry time.Duration

	// grab replaces EVIOCGRAB in tests: a FIFO cannot be grabbed.
	grab func(*os.File) error
	// handled, if set, is called by the reader goroutine after each input
	// record it has taken, so tests wait for their input to be handled.
	handled func()
	// looked, if set, is called after each look for a gone device, so
	// tests wait for looks instead of guessing how long they take.
	looked func()
}

// Reader is a keyboard-style reader. It implements nfc.Reader.
type Reader struct {
	opts Options
	log  *slog.Logger

	results chan nfc.Scan // cap 1: the armed window's one result
	unread  chan error    // lines that were no UID, for OnUnread; extras dropped
	closing chan struct{}
	once    sync.Once
	wg      sync.WaitGroup

	mu     sync.Mutex
	f      *os.File // the open device; nil while it is gone
	armed  bool
	status nfc.Status
}

var _ nfc.Reader = (*Reader)(nil)

// Open opens and grabs the device and starts reading it. Close it.
func Open(o *Options) (*Reader, error) {
	if o == nil || o.Path == "" {
		return nil, errors.New("nfc/keyboard: no device configured: set nfc.device to the reader's /dev/input/by-id/…-event-kbd link")
	}
	if o.Aliaser == nil || o.Scope == "" || len(o.Scope) > nfc.MaxScopeLen {
		return nil, errors.New("nfc/keyboard: an aliaser and a scope (at most nfc.MaxScopeLen bytes) are required")
	}
	r := &Reader{opts: *o, log: o.Logger, results: make(chan nfc.Scan, 1), unread: make(chan error, 4), closing: make(chan struct{})}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	if r.opts.grab == nil {
		r.opts.grab = evdev.Grab
	}
	if r.opts.Retry <= 0 {
		r.opts.Retry = time.Second
	}
	f, err := r.open()
	if err != nil {
		return nil, err
	}
	r.f = f
	r.status = nfc.Status{State: nfc.StateReady, Reader: o.Path}
	r.log.Info("nfc/keyboard: reading the reader; its keystrokes reach nothing else", "path", o.Path)
	r.wg.Add(1)
	go r.run()
	return r, nil
}

// Close stops reading and releases the device (and with it the grab).
func (r *Reader) Close() error {
	r.once.Do(func() {
		close(r.closing)
		r.mu.Lock()
		f := r.f
		r.f = nil
		r.mu.Unlock()
		if f != nil {
			f.Close()
		}
	})
	r.wg.Wait()
	return nil
}

// Status returns the current status.
func (r *Reader) Status() nfc.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// Scan is ScanWith without options.
func (r *Reader) Scan(ctx context.Context, window time.Duration) (nfc.Scan, error) {
	return r.ScanWith(ctx, window, nil)
}

// ScanWith arms the reader for window and returns the first line's result,
// as nfc.Dev.ScanWith does: a line that is no UID (ErrBadTag) goes to
// OnUnread and leaves the window open.
func (r *Reader) ScanWith(ctx context.Context, window time.Duration, o *nfc.ScanOptions) (nfc.Scan, error) {
	if window <= 0 || window > nfc.MaxWindow {
		return nfc.Scan{}, fmt.Errorf("nfc/keyboard: window %v out of range (0, %v]", window, nfc.MaxWindow)
	}
	select {
	case <-r.closing:
		return nfc.Scan{}, nfc.ErrClosed
	case <-r.results: // left over from an earlier window
	default:
	}
	for len(r.unread) > 0 {
		<-r.unread
	}
	if st, ok := r.setArmed(true); !ok {
		return nfc.Scan{}, st.Err
	}
	defer r.setArmed(false)
	return nfc.WaitWindow(ctx, window, r.results, r.unread, r.closing, o)
}

// setArmed opens or closes the window; it fails when there is no reader.
func (r *Reader) setArmed(on bool) (nfc.Status, bool) {
	r.mu.Lock()
	if r.status.State == nfc.StateNoReader {
		st := r.status
		r.mu.Unlock()
		return st, !on
	}
	r.armed = on
	st := nfc.Status{State: nfc.StateReady, Reader: r.opts.Path}
	if on {
		st.State = nfc.StateArmed
	}
	r.mu.Unlock()
	r.setStatus(st)
	return st, true
}

func (r *Reader) setStatus(st nfc.Status) {
	r.mu.Lock()
	changed := st != r.status
	r.status = st
	r.mu.Unlock()
	if changed && r.opts.OnState != nil {
		r.opts.OnState(st)
	}
}

// line is the reader goroutine's state of the line being typed.
type line struct {
	buf     []byte
	started time.Time
	skip    bool // part of it was typed outside a window, or it is no UID
}

// run reads the device until Close, and when it is unplugged waits for it
// to come back.
func (r *Reader) run() {
	defer r.wg.Done()
	for {
		r.mu.Lock()
		f := r.f
		r.mu.Unlock()
		if f == nil { // closed
			return
		}
		err := r.read(f)
		select {
		case <-r.closing:
			return
		default:
		}
		if !r.await(r.gone(f, err)) {
			return
		}
	}
}

// read reads key presses from f until it fails. A line cut short by the
// failure is dropped with it.
func (r *Reader) read(f *os.File) error {
	br := bufio.NewReaderSize(f, 64*evdev.RecordSize)
	rec := make([]byte, evdev.RecordSize)
	var l line
	defer clear(l.buf)
	for {
		if _, err := io.ReadFull(br, rec); err != nil {
			return err
		}
		if ev := evdev.Decode(rec); ev.Type == evdev.EvKey && ev.Value == 1 { // presses only; not releases or autorepeat
			r.key(&l, ev.Code)
		}
		if r.opts.handled != nil {
			r.opts.handled()
		}
	}
}

// key takes one key press. Outside a window the line is marked skipped,
// so a UID whose typing a window's opening interrupts is never read.
func (r *Reader) key(l *line, code uint16) {
	r.mu.Lock()
	armed := r.armed
	r.mu.Unlock()
	if isEnter(code) {
		if armed && !l.skip && len(l.buf) > 0 {
			r.deliver(r.identify(l))
		}
		clear(l.buf)
		*l = line{buf: l.buf[:0]}
		return
	}
	c, ok := keyChars[code]
	switch {
	case !armed:
		l.skip = true
		clear(l.buf)
		l.buf = l.buf[:0]
	case l.skip:
	case !ok || len(l.buf) >= maxLine:
		l.skip = true
		r.deliver(nfc.Scan{Reader: r.opts.Path, Err: fmt.Errorf("%w: the reader typed a key that is no digit, or too many", nfc.ErrBadTag)})
	default:
		if len(l.buf) == 0 {
			l.started = time.Now()
		}
		l.buf = append(l.buf, c)
	}
}

func (r *Reader) identify(l *line) nfc.Scan {
	now := time.Now()
	s := nfc.Scan{Reader: r.opts.Path, PresentAt: l.started, ReadyAt: now, ReaderTime: now.Sub(l.started)}
	uid, err := parseUID(l.buf)
	defer clear(uid)
	switch {
	case err != nil:
		s.Err = err
	case nfc.RandomUID(uid):
		s.Unidentifiable = true
		r.log.Info("nfc/keyboard: tag with a random UID: unidentifiable, not sent")
	default:
		// A typed UID comes without the tag's memory: under an NDEF
		// policy this is the alias with a note, or a refusal.
		s.Object, s.Note, s.Err = nfc.ObjectOf(r.opts.Aliaser, r.opts.Scope, uid, nfc.TagMemory{})
		if s.Err == nil {
			r.log.Info("nfc/keyboard: tag read", "objectRef", nfc.LoggedRef(s.Object))
		}
	}
	return s
}

// deliver hands s to the armed window. A result that ends the window
// disarms it at once, so a reader typing the same tag again (a tag left
// on) counts once per window.
func (r *Reader) deliver(s nfc.Scan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.armed {
		return
	}
	if nfc.Retryable(s.Err) {
		select {
		case r.unread <- s.Err:
		default: // the person has been told already
		}
		return
	}
	r.armed = false
	r.results <- s // armed until now, so the window's first: there is room
}
