// Package nfctest provides an in-process virtual tag reader with the
// behaviour of nfc.Dev's armed window, for the demo when no pcscd with the
// vpcd driver is available and for tests of code above the reader. Tests of
// the reader itself use the real stack (pcscd + vpcd, package nfc/vpcd).
package nfctest

import (
	"context"
	"sync"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// Reader is a virtual reader. Tap puts a tag on it, Remove takes it off.
// Like a real reader, a tag is read only inside an armed window (Scan), a
// tag already on the reader when the window opens counts once, and a tag
// left on the reader does not repeat.
type Reader struct {
	aliaser nfc.Aliaser
	scope   string
	name    string

	mu      sync.Mutex
	uid     []byte // tag on the reader, nil if none
	fresh   bool   // the tag has not been delivered yet
	pulled  int    // taps pulled away mid-read, not yet reported
	armed   int    // Scans waiting
	changed chan struct{}
	present bool
}

// New returns a virtual reader that aliases UIDs with a for scope.
func New(a nfc.Aliaser, scope string) *Reader {
	return &Reader{aliaser: a, scope: scope, name: "acbridge virtual reader", changed: make(chan struct{}), present: true}
}

// Tap places a tag with uid on the reader (replacing any other).
func (r *Reader) Tap(uid []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.uid, r.fresh = append([]byte(nil), uid...), true
	r.signal()
}

// Remove takes the tag off the reader.
func (r *Reader) Remove() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.uid, r.fresh = nil, false
	r.signal()
}

// PullAway is a tap whose tag left the field mid-read: an armed window
// reports it (nfc.ErrTagLost) through ScanOptions.OnUnread and stays open,
// as nfc.Dev does. Outside a window it does nothing.
func (r *Reader) PullAway() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.armed == 0 {
		return
	}
	r.pulled++
	r.signal()
}

// Unplug and Plug change whether the reader is attached.
func (r *Reader) Unplug() { r.setPresent(false) }
func (r *Reader) Plug()   { r.setPresent(true) }

func (r *Reader) setPresent(p bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.present = p
	r.signal()
}

func (r *Reader) signal() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// Armed reports how many Scans are waiting for a tag: a test that sees 0
// knows a tag tapped now is read by no one, without waiting to see that
// nothing reads it.
func (r *Reader) Armed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.armed
}

// Status reports the reader as ready (or absent after Unplug).
func (r *Reader) Status() nfc.Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.present {
		return nfc.Status{State: nfc.StateNoReader, Err: nfc.ErrNoReader}
	}
	return nfc.Status{State: nfc.StateReady, Reader: r.name}
}

// Scan arms the reader for window and returns the first tag tapped in it.
func (r *Reader) Scan(ctx context.Context, window time.Duration) (nfc.Scan, error) {
	return r.ScanWith(ctx, window, nil)
}

// ScanWith is Scan with options.
func (r *Reader) ScanWith(ctx context.Context, window time.Duration, o *nfc.ScanOptions) (nfc.Scan, error) {
	timer := time.NewTimer(window)
	defer timer.Stop()
	r.mu.Lock()
	r.armed++
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.armed--
		r.mu.Unlock()
	}()
	for {
		r.mu.Lock()
		if !r.present {
			r.mu.Unlock()
			return nfc.Scan{}, nfc.ErrNoReader
		}
		if r.pulled > 0 {
			r.pulled--
			r.mu.Unlock()
			if o != nil && o.OnUnread != nil {
				o.OnUnread(nfc.ErrTagLost)
			}
			continue
		}
		if r.uid != nil && r.fresh {
			r.fresh = false
			now := time.Now()
			s := nfc.Scan{Reader: r.name, PresentAt: now, ReadyAt: now}
			if nfc.RandomUID(r.uid) {
				s.Unidentifiable = true
			} else {
				s.Object = r.aliaser.Object(r.scope, r.uid)
			}
			r.mu.Unlock()
			return s, nil
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-timer.C:
			return nfc.Scan{}, nfc.ErrNoTag
		case <-ctx.Done():
			return nfc.Scan{}, ctx.Err()
		}
	}
}
