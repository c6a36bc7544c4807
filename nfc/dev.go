package nfc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ebfe/scard"
)

// Dev is one NFC reader handle: New makes it, run Run in a goroutine, Arm a
// window and receive taps from Scans (or call Scan), Close it.
type Dev struct {
	opts  Options
	log   *slog.Logger
	sysfs string // root of sysfs, for the pn533 diagnosis
	// quieted is the reader whose buzzer this PC/SC context turned off;
	// only the loop goroutine uses it.
	quieted string

	scans   chan Scan
	kick    chan struct{} // cap 1: the supervisor must re-read the state
	wakeReq chan struct{} // cap 1: the loop must re-evaluate (Arm)

	// scMu orders SCardCancel (waker) against SCardReleaseContext (loop):
	// pcsc-lite must not see both on one context at once.
	scMu    sync.Mutex
	sc      *scard.Context
	waiting atomic.Bool // the loop is in, or about to enter, GetStatusChange

	mu      sync.Mutex
	life    Lifecycle
	evalCh  chan struct{} // closed each time the loop evaluates; see wake
	reader  string        // reader in use, "" if none
	noRdErr error         // why there is no reader
	armed   bool
	until   time.Time     // end of the armed window
	armedAt time.Time     // start of the armed window
	winDone chan struct{} // closed when the current window ends
	found   chan struct{} // closed when the reader in use changes; see WaitReader
}

// New validates opts and returns a handle. It opens nothing, not even a
// connection to pcscd, so it succeeds before pcscd or the reader is there;
// Run does the work. (Named New, not Open, for that reason: gpio.Open and
// evdev.Open do open their device.)
func New(ctx context.Context, opts *Options) (*Dev, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if opts == nil {
		return nil, errors.New("nfc: New needs Options with an Aliaser and a Scope")
	}
	o := *opts
	switch {
	case o.Aliaser == nil:
		return nil, errors.New("nfc: Options.Aliaser is required (a *keystore.Store)")
	case o.Scope == "" || len(o.Scope) > MaxScopeLen:
		return nil, fmt.Errorf("nfc: Options.Scope must be 1 to %d bytes (the agent's canonical origin)", MaxScopeLen)
	case len(o.Reader) > MaxReaderNameLen:
		return nil, fmt.Errorf("nfc: Options.Reader is longer than %d bytes", MaxReaderNameLen)
	case o.MinBackoff < 0 || o.MaxBackoff < 0:
		return nil, errors.New("nfc: negative backoff")
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Debounce == 0 {
		o.Debounce = 100 * time.Millisecond
	}
	if o.MinBackoff == 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 5 * time.Second
	}
	o.MaxBackoff = max(o.MaxBackoff, o.MinBackoff)
	return &Dev{
		opts:    o,
		log:     o.Logger,
		sysfs:   "/sys",
		scans:   make(chan Scan, 1),
		life:    NewLifecycle("nfc"),
		kick:    make(chan struct{}, 1),
		wakeReq: make(chan struct{}, 1),
		evalCh:  make(chan struct{}),
		noRdErr: ErrNoReader,
	}, nil
}

// Run watches the reader until ctx is done or Close is called; it returns
// ctx.Err() or ErrClosed. It survives pcscd restarts and reader hotplug on
// its own. Call it once.
func (d *Dev) Run(ctx context.Context) error {
	d.mu.Lock()
	ctx, cancel, err := d.life.Start(ctx)
	d.mu.Unlock()
	if err != nil {
		return err
	}
	defer d.life.RunDone()

	loopDone := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); d.waker(ctx, loopDone) }()
	go func() { defer wg.Done(); d.supervise(ctx) }()
	d.loop(ctx)
	close(loopDone)
	cancel()
	wg.Wait()

	d.mu.Lock()
	defer d.mu.Unlock()
	return d.life.Result(ctx)
}

// Close stops Run and waits for it, ends any window and unblocks Scan. It is
// safe to call twice.
func (d *Dev) Close() error {
	d.mu.Lock()
	wait := d.life.Close()
	if wait != nil {
		d.endWindowLocked()
	}
	d.mu.Unlock()
	if wait != nil {
		wait()
	}
	return nil
}

// Arm opens the armed window for window (at most MaxWindow), or extends the
// open one. While armed, the first identified tap is delivered on Scans and
// ends the window; random-UID tags and unreadable taps are delivered too but
// leave it open. A tag already on the reader counts once.
func (d *Dev) Arm(window time.Duration) error {
	_, err := d.arm(window)
	return err
}

func (d *Dev) arm(window time.Duration) (<-chan struct{}, error) {
	if window <= 0 || window > MaxWindow {
		return nil, fmt.Errorf("nfc: armed window must be between 0 and %v, got %v", MaxWindow, window)
	}
	d.mu.Lock()
	if d.life.Closed() {
		d.mu.Unlock()
		return nil, ErrClosed
	}
	now := time.Now()
	if !d.armed {
		d.armed = true
		d.armedAt = now
		d.winDone = make(chan struct{})
	}
	d.until = now.Add(window)
	done := d.winDone
	d.mu.Unlock()
	d.signal(d.kick)
	d.signal(d.wakeReq)
	return done, nil
}

// Disarm closes the armed window early (the user or the agent cancelled).
func (d *Dev) Disarm() {
	d.mu.Lock()
	d.endWindowLocked()
	d.mu.Unlock()
	d.signal(d.kick)
}

func (d *Dev) endWindowLocked() {
	if d.armed {
		d.armed = false
		close(d.winDone)
		d.winDone = nil
	}
}

// Scans delivers taps made while armed. Run blocks on it, so read it while
// a window is open.
func (d *Dev) Scans() <-chan Scan { return d.scans }

// UnreadNotice is what to tell the person when OnUnread reports a tap.
const UnreadNotice = "couldn't read the tag — hold it still"

// ScanOptions tunes one Scan. A nil *ScanOptions means the defaults.
type ScanOptions struct {
	// OnUnread, if set, is told of each tap whose tag could not be read
	// because it moved (ErrTagLost) or answered garbage (ErrBadTag); the
	// window stays open for the next tap either way. It is called on
	// Scan's goroutine and should return promptly: the reader waits.
	OnUnread func(error)
}

// Scan arms the reader for window and waits for the first result: an
// identified tag (error nil), an unidentifiable one (error nil,
// Unidentifiable set) or a tap the reader cannot read at all, such as
// ErrGetDataUnsupported (Scan.Err, also returned). A tag pulled away
// mid-read is not a result: the window stays open (see
// ScanOptions.OnUnread), and only its end (ErrNoTag), ctx or Close end
// Scan. Run must be running.
func (d *Dev) Scan(ctx context.Context, window time.Duration) (Scan, error) {
	return d.ScanWith(ctx, window, nil)
}

// ScanWith is Scan with options.
func (d *Dev) ScanWith(ctx context.Context, window time.Duration, o *ScanOptions) (Scan, error) {
	select { // drop a result left over from an earlier window
	case <-d.scans:
	default:
	}
	done, err := d.arm(window)
	if err != nil {
		return Scan{}, err
	}
	for {
		select {
		case s := <-d.scans:
			if o.unread(s) {
				continue
			}
			return s, s.Err
		case <-done:
			// A result is sent before its window ends; look once more.
			select {
			case s := <-d.scans:
				if !o.unread(s) {
					return s, s.Err
				}
			default:
			}
			select {
			case <-d.life.Closing():
				return Scan{}, ErrClosed
			default:
				return Scan{}, ErrNoTag
			}
		case <-ctx.Done():
			d.Disarm()
			return Scan{}, ctx.Err()
		}
	}
}

// unread reports whether s is a tap worth another try, telling OnUnread.
func (o *ScanOptions) unread(s Scan) bool {
	if !Retryable(s.Err) {
		return false
	}
	if o != nil && o.OnUnread != nil {
		o.OnUnread(s.Err)
	}
	return true
}

// Retryable reports whether err is a tap that failed because of how the tag
// was presented (moved away mid-read, a garbled answer), so that the same
// tag tapped again, held still, will likely be read.
func Retryable(err error) bool {
	return errors.Is(err, ErrTagLost) || errors.Is(err, ErrBadTag)
}

// Status returns the current status, without debounce.
func (d *Dev) Status() Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.statusLocked()
}

func (d *Dev) statusLocked() Status {
	switch {
	case d.reader == "":
		return Status{State: StateNoReader, Err: d.noRdErr}
	case d.armed:
		return Status{State: StateArmed, Reader: d.reader}
	default:
		return Status{State: StateReady, Reader: d.reader}
	}
}

func (d *Dev) signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// setReader records the reader in use ("" with the reason when none).
func (d *Dev) setReader(name string, why error) {
	d.mu.Lock()
	changed := d.reader != name || (name == "" && (d.noRdErr == nil) != (why == nil)) ||
		(name == "" && why != nil && d.noRdErr.Error() != why.Error())
	d.reader, d.noRdErr = name, why
	if changed && d.found != nil {
		close(d.found)
		d.found = nil
	}
	d.mu.Unlock()
	if changed {
		if name != "" {
			d.log.Info("nfc: reader ready", "reader", name)
		} else {
			d.log.Warn("nfc: no reader", "err", why)
		}
		d.signal(d.kick)
	}
}
