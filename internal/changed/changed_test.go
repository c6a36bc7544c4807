package changed_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/internal/changed"
)

func TestWaitWakesOnNotify(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s changed.Signal
		var v atomic.Int32
		done := make(chan error, 1)
		go func() { done <- s.Wait(context.Background(), func() bool { return v.Load() == 2 }) }()
		for i := range 2 {
			synctest.Wait() // the waiter is blocked on the signal
			select {
			case err := <-done:
				t.Fatalf("Wait returned %v with the value at %d", err, i)
			default:
			}
			v.Add(1)
			s.Notify()
		}
		synctest.Wait()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("Wait did not return once the condition held")
		}
	})
}

func TestWaitEndsWithContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var s changed.Signal
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := s.Wait(ctx, func() bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait = %v, want the context's deadline", err)
		}
	})
}
