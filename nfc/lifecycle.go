package nfc

import (
	"context"
	"errors"
)

// Lifecycle is the Run-once, Close-twice bookkeeping of a reader handle
// (Dev, and the polled chips' poll.Reader): Run may start once and not
// after Close; Close marks the handle closed, stops Run and waits for it.
// It has no lock of its own: each method but RunDone and Closing is called
// with the owner's mutex held, the one that also guards what Close must
// change in the same step (Dev ends its armed window there).
type Lifecycle struct {
	name    string        // the owner's package, for the second-Run error
	closing chan struct{} // closed by Close
	runDone chan struct{} // closed when Run returns
	closed  bool
	running bool
	stop    context.CancelFunc
}

// NewLifecycle returns the bookkeeping of a handle of package name.
func NewLifecycle(name string) Lifecycle {
	return Lifecycle{name: name, closing: make(chan struct{}), runDone: make(chan struct{})}
}

// Start marks Run begun and returns the context it runs under, which
// Close cancels; ErrClosed after Close, an error on a second Run. After a
// nil error the caller defers RunDone.
func (l *Lifecycle) Start(ctx context.Context) (context.Context, context.CancelFunc, error) {
	if l.closed {
		return nil, nil, ErrClosed
	}
	if l.running {
		return nil, nil, errors.New(l.name + ": Run called twice")
	}
	l.running = true
	ctx, l.stop = context.WithCancel(ctx)
	return ctx, l.stop, nil
}

// RunDone tells Close that Run has returned; called without the lock.
func (l *Lifecycle) RunDone() { close(l.runDone) }

// Result is what Run returns once its loop is done under ctx.
func (l *Lifecycle) Result(ctx context.Context) error {
	if l.closed {
		return ErrClosed
	}
	return ctx.Err()
}

// Close marks the handle closed and returns the wait that stops Run and
// waits for it, for the caller to run after unlocking; nil when the
// handle was already closed.
func (l *Lifecycle) Close() (wait func()) {
	if l.closed {
		return nil
	}
	l.closed = true
	close(l.closing)
	stop, running, done := l.stop, l.running, l.runDone
	return func() {
		if running {
			stop()
			<-done
		}
	}
}

// Closed reports whether Close was called.
func (l *Lifecycle) Closed() bool { return l.closed }

// Closing is closed by Close; readable without the lock.
func (l *Lifecycle) Closing() <-chan struct{} { return l.closing }
