package kiosk_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
)

// TestScanTimeExtended: the reader's time limit is said with how to get
// more, and again shortly before it ends; a press of SCAN while the reader waits gives it the window again,
// said aloud, up to a bound that is said too; then a tag still goes
// through. Physical buttons only, in speech mode, with the real bridge.
func TestScanTimeExtended(t *testing.T) {
	r, said, phys := spokenRig(t, &kiosk.Options{})

	phys.Tap(button.Scan, true) // long: speech mode, and the reader waits
	waitSaid(t, said, "The reader waits 5 seconds. For more time, press Scan a tag again.")
	// Before the window ends, the warning, with what to do.
	waitSaid(t, said, "2 seconds left. For more time, press Scan a tag now.")
	for i := 1; i <= 3; i++ {
		phys.Tap(button.Scan, false)
		r.waitOut("[reader armed for 5s more", i)
	}
	// Said once per extension (one utterance may join several).
	waitSaidCount(t, said, "The reader waits 5 seconds more.", 3)
	phys.Tap(button.Scan, false) // a fourth time: the bound
	r.waitOut("cannot be extended", 1)
	waitSaid(t, said, "The reader cannot wait any longer.")
	r.reader.Tap(canaryUID)
	waitSaid(t, said, "Tag sent")
	r.reader.Remove()
	if n := strings.Count(r.out.String(), "[reader armed for 5s:"); n != 1 {
		t.Errorf("the reader was armed %d times, want once (extensions are not new scans)", n)
	}
}

// waitSaidCount waits until the TTS command's input holds want n times.
func waitSaidCount(t *testing.T, path, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if strings.Count(string(b), want) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not said %d× within 10 s: %q\nsaid:\n%s", n, want, b)
		}
		time.Sleep(20 * time.Millisecond) // a file written by another process: nothing to wait on
	}
}
