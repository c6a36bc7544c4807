package kiosk_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// TestScanTimeExtended: the reader's time limit is said with how to get
// more, and again shortly before it ends; a press of SCAN while the reader waits gives it the window again,
// said aloud, up to a bound that is said too; then a tag still goes
// through. Physical buttons only, in speech mode, with the real bridge.
func TestScanTimeExtended(t *testing.T) {
	// A window long enough that a loaded machine still presses in time
	// after the warning, which comes at its half.
	r, said, phys := spokenRig(t, &kiosk.Options{}, func(_ *agent.Options, bo *bridge.Options) { bo.Policy.Window = 12 * time.Second })

	phys.Tap(button.Scan, true) // long: speech mode, and the reader waits
	waitSaid(t, said, "The reader waits 12 seconds. For more time, press Scan a tag again.")
	// Before the window ends, the warning, with what to do.
	waitSaid(t, said, "6 seconds left. For more time, press Scan a tag now.")
	for i := 1; i <= 3; i++ {
		phys.Tap(button.Scan, false)
		r.waitOut("[reader armed for 12s more", i)
	}
	// Said once per extension (one utterance may join several).
	waitSaidCount(t, said, "The reader waits 12 seconds more.", 3)
	phys.Tap(button.Scan, false) // a fourth time: the bound
	r.waitOut("cannot be extended", 1)
	waitSaid(t, said, "The reader cannot wait any longer.")
	r.reader.Tap(canaryUID)
	waitSaid(t, said, "Tag sent")
	r.reader.Remove()
	if n := strings.Count(r.out.String(), "[reader armed for 12s:"); n != 1 {
		t.Errorf("the reader was armed %d times, want once (extensions are not new scans)", n)
	}
}

// waitSaidCount waits until the TTS command's input holds want n times,
// and returns that input. The TTS command is a real process that writes
// its input to a file; it signals nothing when it is done.
func waitSaidCount(t *testing.T, path, want string, n int) string {
	t.Helper()
	var b []byte
	if !poll.Until(10*time.Second, 20*time.Millisecond, func() bool {
		b, _ = os.ReadFile(path)
		return strings.Count(string(b), want) >= n
	}) {
		t.Fatalf("not said %d× within 10 s: %q\nsaid:\n%s", n, want, b)
	}
	return string(b)
}

// TestSpeechOnSaysOpenWindow: the long press that turns speech mode on
// arms the reader first (the press comes before the long press), so the
// reader's window is already on the screen when speech comes on; it is
// said then, with its time, not left for a person who cannot see it.
func TestSpeechOnSaysOpenWindow(t *testing.T) {
	said := filepath.Join(t.TempDir(), "said")
	s := startKiosk(t, &kiosk.Options{Speech: true, SpeechCommand: ttsTo(said)})
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC}})
	s.Display(notice.Notice{Kind: notice.Armed, Control: button.Scan, Text: "reader armed for 12s: tap a tag"})
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	defer phys.Close()
	watched := s.Watch(phys)
	phys.Tap(button.Scan, true)
	for range 3 { // press, long press, release
		if _, err := watched.Read(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	waitSaid(t, said, "The reader waits 12 seconds. For more time, press Scan a tag again.")
}
