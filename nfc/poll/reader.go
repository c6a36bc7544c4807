package poll

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/nfc"
)

// NoChip is the operator's problem when the chip cannot be opened or stops
// answering; Status.Err wraps ErrNoChip with the driver's own reason.
var NoChip = health.Register(&health.Warnable{Code: "nfc.chip", Text: "the NFC reader board does not answer",
	Fix:    "check the board's wiring and power and that nfc.device names its port; `acbridge doctor` tries it and names the fix",
	Person: "The tag reader is not working. Please tell the staff."})

// ErrNoChip is NoChip's error.
var ErrNoChip = NoChip.Err("nfc/poll")

// Pinger is a Chip that can tell whether it still answers without
// switching its RF field on (the PN532's GetFirmwareVersion). Between
// windows the Reader pings such a chip every Options.IdleCheck, so that
// Status notices a board that stopped answering before someone taps.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Options configures New. Open, Aliaser and Scope are required; zero
// values of the rest mean the documented defaults.
type Options struct {
	Open OpenFunc
	// Name is Status.Reader, for example "PN532 on /dev/ttyAMA0".
	Name    string
	Aliaser nfc.Aliaser
	Scope   string
	// Logger receives diagnostics (never a UID); nil discards them.
	Logger *slog.Logger
	// OnState, if set, is told of each status change, from the goroutine
	// that made it; it must not block or call Close.
	OnState func(nfc.Status)
	// Interval is the pause between two polls inside a window (default
	// 100 ms): a tap is seen within about Interval plus one exchange.
	Interval time.Duration
	// Exchange bounds one Poll or FieldOff (default 2 s).
	Exchange time.Duration
	// IdleCheck is how often a Pinger chip is asked, outside windows,
	// whether it still answers (default 5 s; negative: never).
	IdleCheck time.Duration
	// MinBackoff and MaxBackoff bound the wait before reopening a chip
	// that failed (defaults 100 ms and 5 s).
	MinBackoff, MaxBackoff time.Duration
}

// Reader is a polled chip as an nfc.Reader. New makes it, Run drives the
// chip, Close ends it.
//
// Presence: the Reader remembers the objectRef (the keyed alias, already
// what leaves the package) of the last tag it delivered, never the UID,
// and forgets it when polls find the field empty (three in a row, so that
// one missed activation is not a new tap) or another tag. A tag
// whose alias is remembered is not delivered again: that is how a tag left
// in the field counts once, also across windows, since the field is off
// between windows and no poll can see the tag leave then. A person who
// wants the same tag read again lifts it and taps it once more. Random
// UIDs change at every activation, so "a random-UID tag" is remembered as
// such instead.
type Reader struct {
	opts Options
	log  *slog.Logger

	wake chan struct{} // cap 1: a window opened

	mu     sync.Mutex
	life   nfc.Lifecycle
	status nfc.Status
	win    *window       // the armed window, nil if none
	found  chan struct{} // closed when the status leaves StateNoReader
}

// window is one armed window, owned by the Scan that opened it.
type window struct {
	at      time.Time
	results chan nfc.Scan // cap 1: the window's one result
	unread  chan error    // taps not read, for OnUnread; extras dropped
}

var _ nfc.Reader = (*Reader)(nil)

// New validates o and returns a Reader; it opens nothing (Run does), so it
// succeeds while the board is unplugged.
func New(o *Options) (*Reader, error) {
	if o == nil || o.Open == nil {
		return nil, errors.New("nfc/poll: Options.Open is required (the chip driver's opener)")
	}
	if o.Aliaser == nil || o.Scope == "" || len(o.Scope) > nfc.MaxScopeLen {
		return nil, fmt.Errorf("nfc/poll: an Aliaser and a Scope of 1 to %d bytes are required", nfc.MaxScopeLen)
	}
	if o.Interval < 0 || o.Exchange < 0 || o.MinBackoff < 0 || o.MaxBackoff < 0 {
		return nil, errors.New("nfc/poll: negative interval, exchange timeout or backoff")
	}
	r := &Reader{opts: *o, log: o.Logger, wake: make(chan struct{}, 1),
		life: nfc.NewLifecycle("nfc/poll")}
	if r.log == nil {
		r.log = slog.New(slog.DiscardHandler)
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d == 0 {
			*d = v
		}
	}
	def(&r.opts.Interval, 100*time.Millisecond)
	def(&r.opts.Exchange, 2*time.Second)
	def(&r.opts.IdleCheck, 5*time.Second)
	def(&r.opts.MinBackoff, 100*time.Millisecond)
	def(&r.opts.MaxBackoff, 5*time.Second)
	r.opts.MaxBackoff = max(r.opts.MaxBackoff, r.opts.MinBackoff)
	if r.opts.Name == "" {
		r.opts.Name = "reader chip"
	}
	r.status = nfc.Status{State: nfc.StateNoReader, Err: fmt.Errorf("%w (%s: not opened yet)", ErrNoChip, r.opts.Name)}
	return r, nil
}

// Run opens the chip and serves windows until ctx is done or Close; it
// returns ctx.Err() or nfc.ErrClosed. A chip that fails is closed and
// reopened with bounded backoff. Call it once.
func (r *Reader) Run(ctx context.Context) error {
	r.mu.Lock()
	ctx, cancel, err := r.life.Start(ctx)
	r.mu.Unlock()
	if err != nil {
		return err
	}
	defer r.life.RunDone()
	defer cancel()
	r.loop(ctx)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.life.Result(ctx)
}

// Close stops Run and waits for it (the chip is closed by then), and ends
// a waiting Scan with nfc.ErrClosed. Safe to call twice.
func (r *Reader) Close() error {
	r.mu.Lock()
	wait := r.life.Close()
	r.mu.Unlock()
	if wait != nil {
		wait()
	}
	return nil
}

// Status returns the current status.
func (r *Reader) Status() nfc.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

// WaitReader waits until the chip is open, ctx is done or the Reader is
// closed, and returns the status then (as nfc.Dev.WaitReader).
func (r *Reader) WaitReader(ctx context.Context) nfc.Status {
	r.mu.Lock()
	if r.status.State != nfc.StateNoReader {
		defer r.mu.Unlock()
		return r.status
	}
	if r.found == nil {
		r.found = make(chan struct{})
	}
	found := r.found
	r.mu.Unlock()
	select {
	case <-found:
	case <-ctx.Done():
	case <-r.life.Closing():
	}
	return r.Status()
}

// Scan is ScanWith without options.
func (r *Reader) Scan(ctx context.Context, window time.Duration) (nfc.Scan, error) {
	return r.ScanWith(ctx, window, nil)
}

// ScanWith arms the reader for d and returns the first result, as
// nfc.Dev.ScanWith does: an identified tag, an unidentifiable one
// (Unidentifiable set) or nfc.ErrNoTag when the window ends. A tag whose
// UID has no ISO 14443 length (nfc.ErrBadTag) goes to OnUnread and leaves
// the window open. A board that is not answering does not fail the scan:
// the window stays open in case it comes back. Run must be running.
func (r *Reader) ScanWith(ctx context.Context, d time.Duration, o *nfc.ScanOptions) (nfc.Scan, error) {
	if d <= 0 || d > nfc.MaxWindow {
		return nfc.Scan{}, fmt.Errorf("nfc/poll: armed window must be between 0 and %v, got %v", nfc.MaxWindow, d)
	}
	w := &window{at: time.Now(), results: make(chan nfc.Scan, 1), unread: make(chan error, 4)}
	r.mu.Lock()
	if r.life.Closed() {
		r.mu.Unlock()
		return nfc.Scan{}, nfc.ErrClosed
	}
	r.win = w
	r.mu.Unlock()
	r.setState(nfc.StateArmed)
	select {
	case r.wake <- struct{}{}:
	default:
	}
	defer func() {
		r.mu.Lock()
		if r.win == w {
			r.win = nil
		}
		r.mu.Unlock()
		r.setState(nfc.StateReady)
	}()
	return nfc.WaitWindow(ctx, d, w.results, w.unread, r.life.Closing(), o)
}

// armed returns the open window, nil if none.
func (r *Reader) armed() *window {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.win
}

// setState moves between Ready and Armed; a Reader without a chip stays in
// StateNoReader until the chip answers.
func (r *Reader) setState(st nfc.State) {
	r.mu.Lock()
	if r.status.State == nfc.StateNoReader {
		r.mu.Unlock()
		return
	}
	if st == nfc.StateReady && r.win != nil {
		st = nfc.StateArmed // another Scan's window is open
	}
	r.mu.Unlock()
	r.setStatus(nfc.Status{State: st, Reader: r.opts.Name})
}

// setStatus records st and tells OnState when it changed.
func (r *Reader) setStatus(st nfc.Status) {
	r.mu.Lock()
	old := r.status
	if st.State == nfc.StateReady && r.win != nil {
		st.State = nfc.StateArmed
	}
	r.status = st
	if st.State != nfc.StateNoReader && r.found != nil {
		close(r.found)
		r.found = nil
	}
	r.mu.Unlock()
	if sameStatus(old, st) {
		return
	}
	if st.State == nfc.StateNoReader {
		r.log.Warn("nfc/poll: no reader", "reader", r.opts.Name, "err", st.Err)
	}
	if r.opts.OnState != nil {
		r.opts.OnState(st)
	}
}

func sameStatus(a, b nfc.Status) bool {
	if a.State != b.State || a.Reader != b.Reader || (a.Err == nil) != (b.Err == nil) {
		return false
	}
	return a.Err == nil || a.Err.Error() == b.Err.Error()
}
