package button

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Merge returns a Source that delivers the events of all sources, for a
// kiosk with GPIO buttons and a keypad, or a terminal beside either. Closing
// it closes every source.
//
// An error from one source (ErrDisconnected when a keypad is unplugged) is
// returned by one Read and that source is not read again; the others go on.
// Once every source has ended, Read returns an error wrapping
// ErrDisconnected.
func Merge(sources ...Source) Source {
	ctx, cancel := context.WithCancel(context.Background())
	m := &merged{
		sources: sources,
		cancel:  cancel,
		results: make(chan result),
		done:    make(chan struct{}),
		ended:   make(chan struct{}),
	}
	m.wg.Add(len(sources))
	for _, s := range sources {
		go m.pump(ctx, s)
	}
	go func() {
		// Not counted in wg: it exits as soon as the pumps have, which
		// Close waits for, and it touches nothing but m.ended.
		m.wg.Wait()
		close(m.ended)
	}()
	return m
}

type merged struct {
	sources []Source
	cancel  context.CancelFunc
	results chan result
	wg      sync.WaitGroup
	once    sync.Once
	done    chan struct{} // closed by Close
	ended   chan struct{} // closed when every pump has returned
	err     error         // of Close
}

type result struct {
	ev  Event
	err error
}

var _ Source = (*merged)(nil)

func (m *merged) pump(ctx context.Context, s Source) {
	defer m.wg.Done()
	for {
		ev, err := s.Read(ctx)
		if ctx.Err() != nil {
			return
		}
		select {
		case m.results <- result{ev, err}:
		case <-ctx.Done():
			return
		}
		if err != nil {
			return
		}
	}
}

func (m *merged) Read(ctx context.Context) (Event, error) {
	select {
	case <-m.done:
		return Event{}, ErrClosed
	default:
	}
	select {
	case r := <-m.results:
		return r.ev, r.err
	case <-ctx.Done():
		return Event{}, ctx.Err()
	case <-m.done:
		return Event{}, ErrClosed
	case <-m.ended:
		return Event{}, fmt.Errorf("button: every source has ended: %w", ErrDisconnected)
	}
}

// Close closes every source and waits for their readers. It is safe to call
// twice.
func (m *merged) Close() error {
	m.once.Do(func() {
		close(m.done)
		m.cancel()
		var errs []error
		for _, s := range m.sources {
			errs = append(errs, s.Close())
		}
		m.wg.Wait()
		<-m.ended
		m.err = errors.Join(errs...)
	})
	return m.err
}
