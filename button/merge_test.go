package button_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

// closeCounter counts Close calls on a Source.
type closeCounter struct {
	button.Source
	n int
}

func (c *closeCounter) Close() error { c.n++; return c.Source.Close() }

func TestMerge(t *testing.T) {
	clk := buttontest.NewClock(t0)
	a := buttontest.NewSource(&button.Options{Clock: clk})
	b := buttontest.NewSource(&button.Options{Clock: clk})
	ca, cb := &closeCounter{Source: a}, &closeCounter{Source: b}
	m := button.Merge(ca, cb)

	a.Press(button.Scan)
	want(t, next(t, m), button.Scan, true, false, t0)
	b.Press(button.Photo)
	want(t, next(t, m), button.Photo, true, false, t0)

	// One source gone: its error once, the other goes on.
	gone := fmt.Errorf("test: %w", button.ErrDisconnected)
	a.Disconnect(gone)
	want(t, next(t, m), button.Scan, false, false, t0) // released by Disconnect
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := m.Read(ctx); err != gone {
		t.Fatalf("Read: %v, want %v", err, gone)
	}
	clk.Advance(time.Second)
	b.Release(button.Photo)
	want(t, next(t, m), button.Photo, false, false, t0.Add(time.Second))

	// Both gone: Read says so instead of blocking.
	b.Disconnect(gone)
	if _, err := m.Read(ctx); err != gone {
		t.Fatalf("Read: %v, want %v", err, gone)
	}
	if _, err := m.Read(ctx); !errors.Is(err, button.ErrDisconnected) {
		t.Fatalf("Read after all ended: %v, want ErrDisconnected", err)
	}

	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if ca.n != 1 || cb.n != 1 {
		t.Fatalf("sources closed %d and %d times, want once each", ca.n, cb.n)
	}
	if _, err := m.Read(ctx); !errors.Is(err, button.ErrClosed) {
		t.Fatalf("Read after Close: %v", err)
	}
}

func TestMergeCloseUnblocksRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := button.Merge(buttontest.NewSource(nil), buttontest.NewSource(nil))
		errc := make(chan error, 1)
		go func() {
			_, err := m.Read(context.Background())
			errc <- err
		}()
		synctest.Wait() // the Read is blocked
		select {
		case err := <-errc:
			t.Fatalf("Read returned before Close: %v", err)
		default:
		}
		m.Close()
		synctest.Wait()
		select {
		case err := <-errc:
			if !errors.Is(err, button.ErrClosed) {
				t.Fatalf("Read: %v, want ErrClosed", err)
			}
		default:
			t.Fatal("Close did not unblock Read")
		}
	})
}
