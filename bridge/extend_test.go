package bridge

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/nfc"
)

// TestScanWindowExtends: an extension gives the reader its whole window
// again from the press; extensions are bounded; the end of the window
// reads as the reader's own ErrNoTag, a CANCEL does not.
func TestScanWindowExtends(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, w := armScan(t.Context(), 10*time.Second)
		if w.longest() != 40*time.Second {
			t.Errorf("the reader's longest window is %s, want 40s", w.longest())
		}
		for i := range maxExtensions {
			time.Sleep(9 * time.Second) // the bubble's clock
			if !w.extend() {
				t.Fatalf("extension %d refused", i+1)
			}
		}
		time.Sleep(9 * time.Second)
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatalf("the window ended %s after its last extension", 9*time.Second)
		}
		if w.extend() {
			t.Error("an extension beyond the bound")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if err := ended(ctx, ctx.Err()); !errors.Is(err, nfc.ErrNoTag) {
			t.Errorf("the window's end reads as %v, want nfc.ErrNoTag", err)
		}
		if w.extend() {
			t.Error("an ended window extended")
		}

		parent, cancel := context.WithCancel(t.Context())
		ctx, _ = armScan(parent, 10*time.Second)
		cancel() // a CANCEL
		if err := ended(ctx, ctx.Err()); !errors.Is(err, context.Canceled) {
			t.Errorf("a cancelled scan reads as %v", err)
		}
	})
}
