package kiosk_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
)

// TestSpokenSession is a visitor who cannot see the screen, with the
// physical buttons only: a long press turns speech mode on, then a scan
// and a photo with the reference agent; what the TTS command was given is
// checked; the page plays no part. The spoken turn is TestSpokenTalkTurn,
// with an agent that owns voice.
func TestSpokenSession(t *testing.T) {
	r, said, phys := spokenRig(t, &kiosk.Options{Language: "es", Languages: []string{"en", "es"}})

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

// ttsTo is a TTS command that appends its input to path, one utterance a
// line after its language: "es|words".
func ttsTo(path string) []string {
	return []string{"sh", "-c", `{ printf '%s|' "$ACBRIDGE_SPEECH_LANG"; cat; echo; } >> "$0"`, path}
}

// spokenRig is a rig in speech mode (ko's other options kept) with
// physical buttons; said is the TTS command's input.
func spokenRig(t *testing.T, ko *kiosk.Options, setup ...func(*agent.Options, *bridge.Options)) (r *rig, said string, phys *button.Debouncer) {
	t.Helper()
	said = filepath.Join(t.TempDir(), "said")
	phys = button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	ko.Speech, ko.SpeechCommand = true, ttsTo(said)
	return newRigWith(t, ko, phys, setup...), said, phys
}
