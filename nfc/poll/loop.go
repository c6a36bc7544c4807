package poll

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// UID lengths of ISO/IEC 14443-3 (single, double, triple size).
func validUIDLen(n int) bool { return n == 4 || n == 7 || n == 10 }

// goneAfter is how many polls in a row must find the field empty before
// a tag counts as gone: a tag at the edge of the field, or one a chip
// fails to re-activate once, must not count as lifted and tapped again.
const goneAfter = 3

// presence is what the loop remembers of the field: the alias of the last
// tag delivered, never its UID (see Reader).
type presence struct {
	ref    string // objectRef of the tag last delivered; "" if none
	random bool   // the tag last delivered had a random UID
	bad    bool   // the tag in the field was reported unreadable already
	empty  int    // polls in a row that found no tag
}

// noTag records an empty poll.
func (p *presence) noTag() {
	if p.empty++; p.empty >= goneAfter {
		*p = presence{}
	}
}

// loop opens the chip, serves it until it fails, and reopens it with
// exponential backoff between MinBackoff and MaxBackoff.
func (r *Reader) loop(ctx context.Context) {
	backoff := r.opts.MinBackoff
	var held presence // kept across reopenings: a tag left on stays counted
	for {
		chip, err := r.open(ctx)
		if err == nil {
			r.log.Info("nfc/poll: reader chip open", "reader", r.opts.Name)
			r.setStatus(nfc.Status{State: nfc.StateReady, Reader: r.opts.Name})
			var healthy bool
			healthy, err = r.serve(ctx, chip, &held)
			if cerr := chip.Close(); cerr != nil {
				r.log.Debug("nfc/poll: close", "err", cerr)
			}
			if healthy {
				backoff = r.opts.MinBackoff
			}
		}
		if ctx.Err() != nil {
			return
		}
		r.setStatus(nfc.Status{State: nfc.StateNoReader, Err: fmt.Errorf("%w (%s: %v)", ErrNoChip, r.opts.Name, err)})
		if !r.sleep(ctx, backoff, nil) {
			return
		}
		backoff = min(2*backoff, r.opts.MaxBackoff)
	}
}

func (r *Reader) open(ctx context.Context) (Chip, error) {
	octx, cancel := context.WithTimeout(ctx, r.opts.Exchange)
	defer cancel()
	return r.opts.Open(octx)
}

// sleep waits d, or until ctx is done (false) or wake fires (a nil wake
// never does).
func (r *Reader) sleep(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-wake:
	case <-ctx.Done():
		return false
	}
	return true
}

// serve polls chip while windows are open and keeps the field off between
// them. It returns the chip's error (nil when ctx is done) and whether a
// poll or ping succeeded, which resets the backoff.
func (r *Reader) serve(ctx context.Context, chip Chip, held *presence) (healthy bool, err error) {
	fieldOn := false
	defer func() {
		if fieldOn && err == nil { // closed mid-window: leave no tag powered
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), r.opts.Exchange)
			if ferr := chip.FieldOff(fctx); ferr != nil {
				r.log.Debug("nfc/poll: field off on the way out", "err", ferr)
			}
			cancel()
		}
	}()
	for {
		w := r.armed()
		if w == nil {
			if fieldOn {
				fieldOn = false
				if err := r.exchange(ctx, chip.FieldOff); err != nil {
					return healthy, fmt.Errorf("switching the RF field off: %w", err)
				}
			}
			idle := r.opts.IdleCheck
			if idle < 0 {
				idle = nfc.MaxWindow
			}
			if !r.sleep(ctx, idle, r.wake) {
				return healthy, nil
			}
			if p, ok := chip.(Pinger); ok && r.armed() == nil && r.opts.IdleCheck > 0 {
				if err := r.exchange(ctx, p.Ping); err != nil {
					return healthy, err
				}
				healthy = true
			}
			continue
		}
		fieldOn = true
		t0 := time.Now()
		pctx, cancel := context.WithTimeout(ctx, r.opts.Exchange)
		uid, err := chip.Poll(pctx)
		cancel()
		if ctx.Err() != nil {
			return healthy, nil
		}
		switch {
		case errors.Is(err, ErrNoTag):
			healthy = true
			held.noTag()
		case err != nil:
			clear(uid)
			return healthy, err
		default:
			healthy = true
			mctx, cancel := context.WithTimeout(ctx, r.opts.Exchange)
			var mem nfc.TagMemory
			if m, ok := chip.(MemoryReader); ok {
				mem = m.Memory(mctx)
			}
			r.identify(w, uid, t0, held, mem)
			cancel()
			clear(uid)
		}
		if !r.sleep(ctx, r.opts.Interval, nil) {
			return healthy, nil
		}
	}
}

// exchange runs one bounded call to the chip.
func (r *Reader) exchange(ctx context.Context, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, r.opts.Exchange)
	defer cancel()
	return f(ctx)
}

// identify turns a polled UID into the window's result, unless it is the tag
// already delivered and still in the field.
func (r *Reader) identify(w *window, uid []byte, polledAt time.Time, held *presence, mem nfc.TagMemory) {
	now := time.Now()
	s := nfc.Scan{Reader: r.opts.Name, PresentAt: polledAt, ReadyAt: now, ReaderTime: now.Sub(polledAt)}
	if polledAt.Before(w.at) {
		s.PresentAt = w.at
	}
	held.empty = 0
	var next presence
	switch {
	case !validUIDLen(len(uid)):
		if held.bad {
			return
		}
		*held = presence{bad: true}
		r.log.Warn("nfc/poll: the chip reported a UID of an impossible length", "reader", r.opts.Name, "len", len(uid))
		r.unread(w, fmt.Errorf("%w: the chip reported a %d-byte UID; ISO 14443 UIDs have 4, 7 or 10", nfc.ErrBadTag, len(uid)))
		return
	case nfc.RandomUID(uid):
		if held.random {
			return
		}
		next = presence{random: true}
		s.Unidentifiable = true
		r.log.Info("nfc/poll: tag with a random UID (phone or emulated card): unidentifiable, not sent", "reader", r.opts.Name)
	default:
		// Presence is the alias's even when an NDEF reference is sent: two
		// tags carrying the same reference are two tags.
		alias := r.opts.Aliaser.Object(r.opts.Scope, uid)
		if held.ref == alias.ObjectRef {
			return // left in the field since it was delivered
		}
		obj, note, err := nfc.ObjectOf(r.opts.Aliaser, r.opts.Scope, uid, mem)
		if nfc.Retryable(err) {
			r.log.Info("nfc/poll: tag left before its NDEF message was read", "reader", r.opts.Name)
			r.unread(w, err)
			return
		}
		if err != nil {
			next = presence{ref: alias.ObjectRef}
			s.Err = err
			r.log.Info("nfc/poll: tag refused", "reader", r.opts.Name, "err", err)
			break
		}
		next = presence{ref: alias.ObjectRef}
		s.Object, s.Note = obj, note
		s.ReadyAt = time.Now()
		r.log.Info("nfc/poll: tag read", "reader", r.opts.Name, "objectRef", nfc.LoggedRef(obj), "latency", s.ReadyAt.Sub(s.PresentAt))
	}
	// Only a delivered tag counts as left in the field: one read as its
	// window ended must be read again by the next window.
	if r.deliver(w, s) {
		*held = next
	}
}

// deliver hands s to w and ends the window, if w is still the open one, and
// reports whether it did.
func (r *Reader) deliver(w *window, s nfc.Scan) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.win != w {
		r.log.Info("nfc/poll: the armed window ended while the tag was read; result dropped")
		return false
	}
	r.win = nil
	w.results <- s // the window's first and only result: there is room
	return true
}

func (r *Reader) unread(w *window, err error) {
	select {
	case w.unread <- err:
	default: // the person has been told already
	}
}
