package audio

import "sync"

// LazyMic resolves a microphone the first time one is asked for, so that a
// process that never carries voice (a daemon serving text agents) never
// loads the sound system: resolving lists the host's devices, which opens
// a sound-system context. A resolved Mic is kept (it looks its device up
// again at every Start); a failed resolution is not, so the next Open
// finds a microphone plugged in since.
type LazyMic struct {
	opts MicOptions

	mu     sync.Mutex
	closed bool
	mic    *Mic
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
// first call and again after a call that found none; once resolved, later
// calls return the same Mic.
func (l *LazyMic) Open() (*Mic, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, ErrClosed
	}
	if l.mic == nil {
		var err error
		if l.mic, err = NewMic(&l.opts); err != nil {
			return nil, err
		}
	}
	return l.mic, nil
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
