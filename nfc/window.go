package nfc

import (
	"context"
	"time"
)

// WaitWindow is the armed window's wait of every Reader that is not PC/SC
// (nfc/keyboard, nfc/poll): it returns the first result sent on results,
// telling o.OnUnread of each failed tap on unread in order — those sent
// before the result too — and ends with ErrNoTag after window, ctx's
// error, or ErrClosed when closing is closed.
func WaitWindow(ctx context.Context, window time.Duration, results <-chan Scan, unread <-chan error, closing <-chan struct{}, o *ScanOptions) (Scan, error) {
	tell := func(err error) {
		if o != nil && o.OnUnread != nil {
			o.OnUnread(err)
		}
	}
	t := time.NewTimer(window)
	defer t.Stop()
	for {
		select {
		case err := <-unread:
			tell(err)
		case s := <-results:
			for len(unread) > 0 {
				tell(<-unread)
			}
			return s, s.Err
		case <-t.C:
			return Scan{}, ErrNoTag
		case <-ctx.Done():
			return Scan{}, ctx.Err()
		case <-closing:
			return Scan{}, ErrClosed
		}
	}
}
