package kiosk_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
)

// TestSpokenSession is a visitor who cannot see the screen, with the
// physical buttons only: a long press turns speech mode on, then a scan
// and a photo with the reference agent; what the TTS command was given is
// checked; the page plays no part. The spoken turn is TestSpokenTalkTurn,
// with an agent that owns voice.
func TestSpokenSession(t *testing.T) {
	said := filepath.Join(t.TempDir(), "said")
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	r := newRigWith(t, &kiosk.Options{Speech: true, Language: "es", Languages: []string{"en", "es"},
		SpeechCommand: []string{"sh", "-c", `{ printf '%s|' "$ACBRIDGE_SPEECH_LANG"; cat; echo; } >> "$0"`, said}}, phys)

	phys.Tap(button.Scan, true) // long: speech mode, and the reader waits
	waitSaid(t, said, "es|La lectura en voz alta está activada.")
	r.waitOut("[reader armed", 1)
	r.reader.Tap(canaryUID)
	waitSaid(t, said, "Etiqueta enviada")
	got := waitSaid(t, said, "Asistente: Unknown object")
	r.reader.Remove()

	phys.Tap(button.Photo, false)
	waitSaid(t, said, "Haciendo una foto")
	got = waitSaid(t, said, "Foto enviada")
	if n := strings.Count(got, "Asistente:"); n < 1 {
		t.Errorf("the answers were not said:\n%s", got)
	}
	if internals.MatchString(got) || strings.Contains(strings.ToUpper(got), canaryHex) {
		t.Errorf("internals said:\n%s", got)
	}
	t.Logf("said:\n%s", got)
}
