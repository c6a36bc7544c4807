package rtcpeer

import "sync"

// Life is the end-of-connection bookkeeping the client's transport and
// the agent's session share. pion calls back on its own goroutines, in any
// order, also after the owner decided to close; so callbacks only record
// why the connection ends (End, which never blocks) and start work as
// goroutines the owner waits for (Go), and one teardown of the owner's
// does the rest once Ended is closed. The zero value is not usable; see
// NewLife.
type Life struct {
	mu      sync.Mutex
	cause   error
	ended   chan struct{}
	stopped bool
	wg      sync.WaitGroup
}

func NewLife() *Life { return &Life{ended: make(chan struct{})} }

// End records err as why the connection ends, unless a reason was
// recorded before; it reports whether this was the first.
func (l *Life) End(err error) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.cause != nil {
		return false
	}
	l.cause = err
	close(l.ended)
	return true
}

// Ended is closed at the first End.
func (l *Life) Ended() <-chan struct{} { return l.ended }

// Err is why the connection ended, nil while it is up.
func (l *Life) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cause
}

// Go starts f on a goroutine Stop waits for, unless Stop already began;
// it reports whether f started.
func (l *Life) Go(f func()) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return false
	}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		f()
	}()
	return true
}

// Stop lets no goroutine start any more and waits for those Go started.
func (l *Life) Stop() {
	l.mu.Lock()
	l.stopped = true
	l.mu.Unlock()
	l.wg.Wait()
}
