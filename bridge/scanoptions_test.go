package bridge_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
)

// A tag pulled away mid-read is a notice, not the end of the scan: the
// reader stays armed and the tag tapped again is sent.
func TestPulledAwayTagKeepsTheReaderArmed(t *testing.T) {
	r := newRig(t)
	r.press(button.Scan)
	waitFor(t, r.out, "[reader armed", 1)
	// The notice comes before the collection goroutine reaches the reader;
	// a pull before that is not in a window and does nothing.
	const unread = "[couldn't read the tag — hold it still]"
	for deadline := time.Now().Add(10 * time.Second); ; {
		r.reader.PullAway()
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := r.out.Wait(ctx, unread, 1)
		cancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no notice of the failed read:\n%s", r.out.String())
		}
	}
	r.reader.Tap(canaryUID)
	waitFor(t, r.out, "[tag sent]", 1)
	waitFor(t, r.out, "agent: Unknown object; no association stored.", 1)
	if strings.Contains(r.out.String(), "scan: ") {
		t.Errorf("the failed read ended the scan:\n%s", r.out.String())
	}
	r.checkNoCanary()
}
