package buttontest

import (
	"slices"
	"sync"

	"github.com/agentcall/acbridge/button"
)

// Indicator is a button.Indicator that records every Light it is set to.
type Indicator struct {
	mu      sync.Mutex
	history []button.Light
	closed  bool
	changed chan struct{}
}

var _ button.Indicator = (*Indicator)(nil)

// NewIndicator returns an Indicator that is off.
func NewIndicator() *Indicator {
	return &Indicator{changed: make(chan struct{}, 1)}
}

// Set records l. After Close it returns button.ErrClosed and records nothing.
func (i *Indicator) Set(l button.Light) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.closed {
		return button.ErrClosed
	}
	i.history = append(i.history, l)
	select {
	case i.changed <- struct{}{}:
	default:
	}
	return nil
}

// Close turns the light off, as a real indicator does. It is safe to call twice.
func (i *Indicator) Close() error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.closed {
		i.closed = true
		i.history = append(i.history, button.LightOff)
	}
	return nil
}

// Light is the current state; LightOff before the first Set.
func (i *Indicator) Light() button.Light {
	i.mu.Lock()
	defer i.mu.Unlock()
	if len(i.history) == 0 {
		return button.LightOff
	}
	return i.history[len(i.history)-1]
}

// History returns every state set so far, oldest first.
func (i *Indicator) History() []button.Light {
	i.mu.Lock()
	defer i.mu.Unlock()
	return slices.Clone(i.history)
}

// Closed reports whether Close was called.
func (i *Indicator) Closed() bool {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.closed
}

// Changed receives a value after Set changed the history; a test waiting for
// another goroutine's Set selects on it.
func (i *Indicator) Changed() <-chan struct{} { return i.changed }
