package button_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

// A device missing at first is tried every interval, and once it is there
// its presses come through; Close during the wait ends the Read.
func TestAwaitOpensTheDeviceOnceItIsThere(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dev := buttontest.NewSource(nil)
		var tries atomic.Int32
		var plugged atomic.Bool
		src := button.Await(func() (button.Source, error) {
			tries.Add(1)
			if !plugged.Load() {
				return nil, fmt.Errorf("open /dev/input/keys: %w", fs.ErrNotExist)
			}
			return dev, nil
		}, 2*time.Second, nil)
		defer src.Close()
		got := make(chan button.Event, 1)
		go func() {
			ev, err := src.Read(t.Context())
			if err != nil {
				t.Errorf("read: %v", err)
			}
			got <- ev
		}()
		synctest.Wait()
		if n := tries.Load(); n != 1 {
			t.Fatalf("%d tries before any interval, want 1", n)
		}
		time.Sleep(4 * time.Second) // synctest's clock: two intervals
		synctest.Wait()
		if n := tries.Load(); n != 3 {
			t.Fatalf("%d tries after two intervals, want 3", n)
		}
		plugged.Store(true)
		time.Sleep(2 * time.Second) // synctest's clock
		synctest.Wait()
		dev.Tap(button.Scan, false)
		if ev := <-got; ev.Control != button.Scan || !ev.Pressed {
			t.Fatalf("got %v, want SCAN pressed", ev)
		}
	})
}

// An error other than "not there" (a permission problem) is returned and
// lasts: it is for the operator to fix, not to wait for.
func TestAwaitReturnsOtherErrors(t *testing.T) {
	denied := fmt.Errorf("open /dev/input/keys: %w", fs.ErrPermission)
	tries := 0
	src := button.Await(func() (button.Source, error) { tries++; return nil, denied }, time.Hour, nil)
	defer src.Close()
	for range 2 {
		if _, err := src.Read(context.Background()); !errors.Is(err, fs.ErrPermission) {
			t.Fatalf("read: %v, want the open error", err)
		}
	}
	if tries != 1 {
		t.Errorf("open tried %d times, want 1", tries)
	}
}

// Close interrupts a Read waiting for the device, and is safe twice.
func TestAwaitCloseEndsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := button.Await(func() (button.Source, error) { return nil, fs.ErrNotExist }, time.Hour, nil)
		done := make(chan error, 1)
		go func() { _, err := src.Read(context.Background()); done <- err }()
		synctest.Wait()
		src.Close()
		src.Close()
		if err := <-done; !errors.Is(err, button.ErrClosed) {
			t.Fatalf("read after Close: %v, want ErrClosed", err)
		}
	})
}
