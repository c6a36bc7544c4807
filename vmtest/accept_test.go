package vmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// testAccept: `acbridge accept` (not --simulate) on the guest's devices:
// the environment checks, the NFC steps with the host's card behind the
// USB CCID reader (two tags, the same tag again, nothing without a tap),
// the vivid capture, and one bouncy press of each gpio-sim button, with
// the daemon's configuration. The optional steps (a phone, a tag's own
// address) are declined with an Enter, as a technician at a terminal may.
func (r *rig) testAccept(t *testing.T) {
	r.sh(t, 20*time.Second, "while pidof acbridge >/dev/null; do usleep 50000; done")
	// The technician's terminal is a FIFO held open: an optional step
	// waits for its decline (an Enter) as long as its step timeout, and
	// input that has ended declines nothing.
	t.Cleanup(func() { r.vm.Run(context.Background(), 5*time.Second, "sh", "-c", "kill $(pidof sleep) 2>/dev/null") })
	r.sh(t, 10*time.Second, "rm -f /tmp/acc.in /tmp/acc.out /tmp/acc.json; mkfifo /tmp/acc.in; (sleep 300 > /tmp/acc.in 2>/dev/null </dev/null &); "+
		"(acbridge accept --only environment,nfc,camera,buttons --report /tmp/acc.json < /tmp/acc.in > /tmp/acc.out 2>&1; echo exit=$? >> /tmp/acc.out) >/dev/null 2>&1 &")
	card := func(err error) {
		if err != nil {
			t.Fatalf("the card behind the CCID reader: %v", err)
		}
	}
	// A lifted tag must be seen gone (QEMU's slot change, libccid, pcscd,
	// accept's status wait) before it is tapped again, or the two cancel
	// out; nothing in the guest reports the absence.
	lift := func() {
		card(r.card.Remove())
		time.Sleep(1500 * time.Millisecond)
	}
	card(r.card.Remove())
	r.waitFile(t, "/tmp/acc.out", "Tap tag 1 on the reader and leave it there.", 1, 90*time.Second)
	card(r.card.Insert(canary1))
	r.waitFile(t, "/tmp/acc.out", "Lift tag 1 off the reader and tap it again.", 1, 30*time.Second)
	lift()
	card(r.card.Insert(canary1))
	r.waitFile(t, "/tmp/acc.out", "Lift tag 1 and tap tag 2 on the reader.", 1, 30*time.Second)
	lift()
	card(r.card.Insert(canary2))
	r.waitFile(t, "/tmp/acc.out", "Take every tag off the reader, press SCAN once", 1, 30*time.Second)
	card(r.card.Remove())
	r.press(t, lineScan)
	r.waitFile(t, "/tmp/acc.out", "Optional: hold a phone", 1, 30*time.Second)
	r.waitFile(t, "/tmp/acc.out", "(press Enter to skip)", 1, 10*time.Second)
	r.sh(t, 5*time.Second, "echo > /tmp/acc.in")
	r.waitFile(t, "/tmp/acc.out", "Press the SCAN button once", 1, 90*time.Second)
	r.press(t, lineScan)
	r.waitFile(t, "/tmp/acc.out", "Press the PHOTO button once", 1, 30*time.Second)
	r.press(t, linePhoto)
	r.waitFile(t, "/tmp/acc.out", "exit=", 1, 60*time.Second)
	out := r.run(t, 5*time.Second, "cat", "/tmp/acc.out").Stdout
	var rep struct {
		Steps []struct {
			ID     string  `json:"id"`
			Result string  `json:"result"`
			Reason string  `json:"reason"`
			Ms     float64 `json:"durationMs"`
		} `json:"steps"`
	}
	js := r.run(t, 5*time.Second, "cat", "/tmp/acc.json").Stdout
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("report: %v\n%s\n%s", err, js, out)
	}
	// Declined at the terminal, not timed out.
	want := map[string]bool{"nfc.random-uid": false, "nfc.reader": false, "nfc.tap1": false, "nfc.tap1-again": false, "nfc.tap2": false, "nfc.no-tap": false,
		"env.camera": false, "env.gpio": false, "camera.capture": false, "buttons.scan": false, "buttons.photo": false}
	var took []string
	for _, s := range rep.Steps {
		took = append(took, fmt.Sprintf("%s %.1fs", s.ID, s.Ms/1000))
		if _, ok := want[s.ID]; ok {
			want[s.ID] = s.Result == "pass" || s.ID == "nfc.random-uid" && s.Result == "skip" && strings.Contains(s.Reason, "had no phone")
		}
		if s.Result == "fail" {
			t.Errorf("accept step %s failed: %s", s.ID, s.Reason)
		}
	}
	t.Logf("accept steps: %s", strings.Join(took, ", "))
	for id, passed := range want {
		if !passed {
			t.Errorf("accept step %s did not pass", id)
		}
	}
	if t.Failed() {
		t.Logf("accept output:\n%s", out)
	}
	if !strings.Contains(out, "exit=0") && !t.Failed() {
		t.Errorf("accept exited non-zero:\n%s", out)
	}
}
