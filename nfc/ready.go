package nfc

import "context"

// WaitReader waits until Run has found a reader, ctx is done or the handle
// is closed, and returns the status then. A reader that is absent is no
// error (it may be plugged in later): callers bound the wait with ctx so
// that, for example, a daemon's first session offers nfc when the reader
// is there at start instead of renegotiating a moment later.
func (d *Dev) WaitReader(ctx context.Context) Status {
	for {
		d.mu.Lock()
		st := d.statusLocked()
		if d.found == nil {
			d.found = make(chan struct{})
		}
		found := d.found
		d.mu.Unlock()
		if st.State != StateNoReader {
			return st
		}
		select {
		case <-found:
		case <-ctx.Done():
			return d.Status()
		case <-d.life.Closing():
			return d.Status()
		}
	}
}
