package audio

import "sync"

// LazyMic resolves a microphone the first time one is asked for, so that a
// process that never carries voice (a daemon serving text agents) never
// loads the sound system: resolving lists the host's devices, which opens
// a sound-system context. The outcome of the first Open is kept.
type LazyMic struct {
	opts MicOptions

	mu     sync.Mutex
	done   bool
	closed bool
	mic    *Mic
	err    error
}

// NewLazyMic returns a LazyMic for opts (nil: the default microphone);
// nothing is opened or listed yet.
func NewLazyMic(opts *MicOptions) *LazyMic {
	l := &LazyMic{}
	if opts != nil {
		l.opts = *opts
	}
	return l
}

// Open returns the microphone as NewMic resolves it, resolving it on the
// first call; later calls return the same Mic or error.
func (l *LazyMic) Open() (*Mic, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	if !l.done {
		l.mic, l.err = NewMic(&l.opts)
		l.done = true
	}
	return l.mic, l.err
}

// Close closes the microphone if Open resolved one; Open then returns
// ErrClosed. It is safe to call twice.
func (l *LazyMic) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.mic == nil {
		return nil
	}
	m := l.mic
	l.mic = nil
	return m.Close()
}
