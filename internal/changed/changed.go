package changed

import (
	"context"
	"sync"
)

// Signal wakes waiters after each Notify. The zero value is ready to use.
type Signal struct {
	mu sync.Mutex
	ch chan struct{} // closed by the next Notify; nil until a Wait
}

// Notify wakes every Wait to ask its condition again. It may be called
// with the caller's own locks held.
func (s *Signal) Notify() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ch != nil {
		close(s.ch)
		s.ch = nil
	}
}

// Wait blocks until cond reports true, asking again after each Notify, or
// until ctx is done. cond runs without the Signal's lock held.
func (s *Signal) Wait(ctx context.Context, cond func() bool) error {
	for {
		s.mu.Lock()
		if s.ch == nil {
			s.ch = make(chan struct{})
		}
		ch := s.ch
		s.mu.Unlock()
		if cond() {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
