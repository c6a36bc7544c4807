package nfc

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// The shared Run/Close bookkeeping: one Run, Close stops and waits for it,
// a second Close and a Run after Close do nothing but say so.
func TestLifecycle(t *testing.T) {
	l := NewLifecycle("pkg")
	ctx, cancel, err := l.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer cancel()
	if _, _, err := l.Start(context.Background()); err == nil || !strings.HasPrefix(err.Error(), "pkg: Run called twice") {
		t.Errorf("second Start: %v", err)
	}
	returned := make(chan error, 1)
	go func() {
		<-ctx.Done() // the owner's loop, until Close cancels it
		l.RunDone()
		returned <- l.Result(ctx)
	}()
	wait := l.Close()
	if wait == nil || !l.Closed() {
		t.Fatal("first Close did not close")
	}
	select {
	case <-l.Closing():
	default:
		t.Error("Closing not closed by Close")
	}
	wait() // returns only once the loop has returned
	if err := <-returned; !errors.Is(err, ErrClosed) {
		t.Errorf("Run result after Close: %v, want ErrClosed", err)
	}
	if l.Close() != nil {
		t.Error("second Close returned a wait")
	}
	if _, _, err := l.Start(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v, want ErrClosed", err)
	}

	// Closed before any Run: nothing to wait for.
	idle := NewLifecycle("pkg")
	if w := idle.Close(); w == nil {
		t.Fatal("Close of an idle handle returned no wait")
	} else {
		w()
	}
}
