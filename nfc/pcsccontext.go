package nfc

import (
	"context"
	"errors"
	"time"

	"github.com/ebfe/scard"
)

// presence tracks the tag on the reader. counter is pcsc-lite's event
// counter (high 16 bits of dwEventState): it changes on every insertion, so
// a tag lifted and put back between two waits is still a new tap.
type presence struct {
	present  bool
	counter  uint32
	seenAt   time.Time
	consumed bool // already delivered (or failed) in a window: never again
	// rereads counts the quiet retries of a tag whose read failed while
	// it may still be on the reader (see readTag); none before rereadAt.
	rereads  int
	rereadAt time.Time
}

// loop runs PC/SC contexts until ctx is done, re-establishing the context
// with bounded exponential backoff after pcscd goes away.
func (d *Dev) loop(ctx context.Context) {
	backoff := d.opts.MinBackoff
	var carry presence
	for {
		healthy, err := d.contextLife(ctx, &carry)
		if ctx.Err() != nil {
			return
		}
		if healthy {
			backoff = d.opts.MinBackoff
		}
		var ee *establishError
		d.setReader("", serviceError(err, errors.As(err, &ee)))
		d.log.Debug("nfc: PC/SC context ended; retrying", "err", err, "retryIn", backoff)
		d.idle()
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, d.opts.MaxBackoff)
	}
}

// idle tells a waiting waker that nothing can be read until the loop
// evaluates again.
func (d *Dev) idle() {
	d.mu.Lock()
	close(d.evalCh)
	d.evalCh = make(chan struct{})
	d.mu.Unlock()
}

// contextLife is one PC/SC context's life. It returns the error that ended it
// (nil when ctx is done) and whether it got as far as waiting for events.
// carry holds the presence across contexts: a tag already delivered and
// still on the reader when pcscd restarts is not delivered again.
func (d *Dev) contextLife(ctx context.Context, carry *presence) (healthy bool, err error) {
	sc, err := scard.EstablishContext()
	if err != nil {
		return false, &establishError{err}
	}
	d.scMu.Lock()
	d.sc = sc
	d.scMu.Unlock()
	d.quieted = "" // pcscd restarted or the reader was replugged: it may beep again
	defer func() {
		d.scMu.Lock()
		d.sc = nil
		d.waiting.Store(false)
		d.scMu.Unlock()
		_ = sc.Release() // fails when pcscd is gone; nothing left to free then
	}()

	pnp := scard.ReaderState{Reader: pnpReader, CurrentState: scard.StateUnaware}
	var rd scard.ReaderState // rd.Reader == "": no reader
	var p presence
	inherit := carry.present && carry.consumed
	defer func() { *carry = p }()
	states := make([]scard.ReaderState, 0, 2)
	relist := true
	for {
		if relist {
			relist = false
			names, err := listReaders(sc)
			if err != nil {
				return healthy, err
			}
			if name := pickReader(d.opts.Reader, names); name != rd.Reader {
				rd = scard.ReaderState{Reader: name, CurrentState: scard.StateUnaware}
				p, inherit = presence{}, false
			}
			if rd.Reader == "" {
				d.setReader("", noReaderError(d.sysfs, d.opts.Reader, names))
			} else {
				d.setReader(rd.Reader, nil)
			}
		}

		read, armedAt, wait, stop := d.evaluate(ctx, &p)
		if stop {
			return healthy, nil
		}
		if read {
			if err := d.readTag(ctx, sc, rd.Reader, &p, armedAt); err != nil {
				return healthy, err
			}
			continue
		}

		states = append(states[:0], pnp)
		if rd.Reader != "" {
			states = append(states, rd)
		}
		err := sc.GetStatusChange(states, wait) // negative: INFINITE; Cancel ends it
		d.waiting.Store(false)
		now := time.Now()
		switch {
		case err == nil:
		case errors.Is(err, scard.ErrCancelled), errors.Is(err, scard.ErrTimeout):
			continue
		case errors.Is(err, scard.ErrUnknownReader), errors.Is(err, scard.ErrReaderUnavailable):
			relist = true
			continue
		default:
			return healthy, err
		}
		healthy = true

		if states[0].EventState&scard.StateChanged != 0 {
			relist = true
		}
		pnp.CurrentState = states[0].EventState &^ scard.StateChanged
		if rd.Reader == "" {
			continue
		}
		ev := states[1].EventState
		rd.CurrentState = ev &^ scard.StateChanged
		if ev&(scard.StateUnknown|scard.StateUnavailable|scard.StateIgnore) != 0 {
			relist = true // unplugged: pick again
			p = presence{}
			continue
		}
		p.observe(ev, now)
		if inherit && p.present {
			p.consumed = true
		}
		inherit = false
	}
}

func (p *presence) observe(ev scard.StateFlag, now time.Time) {
	present := ev&scard.StatePresent != 0 && ev&scard.StateMute == 0
	counter := uint32(ev >> 16)
	switch {
	case !present:
		*p = presence{}
	case !p.present || p.counter != counter:
		*p = presence{present: true, counter: counter, seenAt: now}
	}
}

// evaluate decides, under the state lock, whether to read the tag now. If
// not, the loop is about to wait (wait is how long, negative for no
// limit): the evaluation is published (evalCh) so that the waker stops
// cancelling.
func (d *Dev) evaluate(ctx context.Context, p *presence) (read bool, armedAt time.Time, wait time.Duration, stop bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if ctx.Err() != nil {
		return false, time.Time{}, 0, true
	}
	now := time.Now()
	wait = -1
	if d.armed && p.present && !p.consumed && now.Before(d.until) {
		if !now.Before(p.rereadAt) {
			return true, d.armedAt, 0, false
		}
		wait = p.rereadAt.Sub(now)
	}
	close(d.evalCh)
	d.evalCh = make(chan struct{})
	d.waiting.Store(true)
	return false, time.Time{}, wait, false
}
