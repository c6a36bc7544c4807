package button

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"sync"
	"time"
)

// Await returns a Source for a device that is not there yet, such as a
// keypad configured but not plugged in when the daemon starts: a kiosk
// with its other controls working is better than one that does not start.
// Each Read tries open, and while open fails with an error wrapping
// fs.ErrNotExist it tries again every interval; once open succeeds, the
// device's own Source serves every Read. Any other error from open is
// returned by Read and ends the Source, as the device's own error would
// (open is not tried again then). log, if not nil, is told once when the
// device appears.
func Await(open func() (Source, error), every time.Duration, log *slog.Logger) Source {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &awaited{open: open, every: every, log: log, done: make(chan struct{})}
}

type awaited struct {
	open  func() (Source, error)
	every time.Duration
	log   *slog.Logger
	done  chan struct{} // closed by Close: interrupts a wait

	mu     sync.Mutex
	src    Source // the device, once open
	err    error  // open's lasting error
	closed bool
	once   sync.Once
}

func (a *awaited) Read(ctx context.Context) (Event, error) {
	for {
		a.mu.Lock()
		src, err, closed := a.src, a.err, a.closed
		a.mu.Unlock()
		switch {
		case closed:
			return Event{}, ErrClosed
		case src != nil:
			return src.Read(ctx)
		case err != nil:
			return Event{}, err
		}
		s, err := a.open()
		if err == nil {
			a.mu.Lock()
			if a.closed {
				a.mu.Unlock()
				s.Close()
				return Event{}, ErrClosed
			}
			a.src = s
			a.mu.Unlock()
			a.log.Info("button: a device that was missing is there now; its buttons work")
			continue
		}
		if !errors.Is(err, fs.ErrNotExist) {
			a.mu.Lock()
			a.err = err
			a.mu.Unlock()
			return Event{}, err
		}
		t := time.NewTimer(a.every)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return Event{}, ctx.Err()
		case <-a.done:
			t.Stop()
			return Event{}, ErrClosed
		}
	}
}

// Close closes the device if it was opened; safe to call twice.
func (a *awaited) Close() error {
	var err error
	a.once.Do(func() {
		a.mu.Lock()
		a.closed = true
		src := a.src
		a.mu.Unlock()
		close(a.done)
		if src != nil {
			err = src.Close()
		}
	})
	return err
}
