package kiosk_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// TestSpeechChosenBeforeConnected is a visitor who cannot see the screen
// and holds Scan while the kiosk is still starting. Speech mode is theirs:
// the session that begins then keeps it and says that the kiosk is ready,
// then the reader on; the session's end is said to them before their
// choices end with it. A long press while the kiosk is not connected turns
// speech on again, and the retries' notices that follow keep it.
func TestSpeechChosenBeforeConnected(t *testing.T) {
	said := filepath.Join(t.TempDir(), "said")
	s := startKiosk(t, &kiosk.Options{Language: "en", Speech: true, SpeechCommand: ttsTo(said)})
	st, _ := openStream(t, s, kioskToken(t, s), nil)
	defer st.close()
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	defer phys.Close()
	watched := s.Watch(phys)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// The bridge's side: every event is read (and, here, dropped).
	drained := make(chan struct{})
	defer func() { cancel(); <-drained }()
	go func() {
		defer close(drained)
		for {
			if _, err := watched.Read(ctx); err != nil {
				return
			}
		}
	}()
	speech := func(want string) {
		t.Helper()
		st.until(t, func(v map[string]any) bool { return v["speech"] == want })
	}
	connected := notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC}}

	phys.Tap(button.Scan, true)
	waitSaid(t, said, "en|Reading aloud is on.")
	waitSaid(t, said, "Starting…")
	s.Display(connected)
	waitSaid(t, said, "Ready")
	speech("on")
	s.Display(notice.Notice{Kind: notice.Armed, Control: button.Scan, Text: "reader armed for 12s: tap a tag"})
	waitSaid(t, said, "Tag reader on")

	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "gone"})
	waitSaid(t, said, "Not available")
	speech("off")

	phys.Tap(button.Cancel, true)
	waitSaidCount(t, said, "en|Reading aloud is on.", 2)
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "refused — retrying in 2s"})
	s.Display(connected)
	waitSaidCount(t, said, "Ready", 2)
	speech("on")

	// A session that follows a session (no end between) is the next
	// person's.
	s.Display(connected)
	speech("off")
}
