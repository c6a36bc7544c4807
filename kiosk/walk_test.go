package kiosk_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// TestFocusWalkSpoken is a visitor who cannot see the screen walking the
// page with the physical buttons only: a long Cancel turns speech mode on,
// each short Cancel says the next control (its name, what it does, why it
// cannot act now) in the page's order, wrapping; Scan on the language
// button says the next language, and the next control is said in it; that
// Scan press never armed the reader, the next one on Scan does.
func TestFocusWalkSpoken(t *testing.T) {
	r, said, phys := spokenRig(t, &kiosk.Options{Language: "en", Languages: []string{"en", "de"}})
	phys.Tap(button.Cancel, true) // long: speech mode; nothing runs to cancel
	waitSaid(t, said, "en|Reading aloud is on.")

	order := []string{
		"Scan a tag. Press it, then hold an object's tag to the reader.",
		"Take a photo. Press it to show the assistant an object.",
		// The rig has no microphone: Talk says why it cannot act.
		"Hold to talk. Use it to speak to the assistant. Talking is not available here.",
		"Cancel. Hold it to stop the assistant. A short press goes to the next control.",
		"Read aloud. Reading aloud is on. Press Scan a tag to turn it off.",
		"Language: English. Press Scan a tag for the next language.",
	}
	for _, want := range order {
		phys.Tap(button.Cancel, false)
		waitSaid(t, said, want)
	}
	phys.Tap(button.Cancel, false) // wraps to the first
	got := waitSaidCount(t, said, order[0], 2)
	at := 0
	for _, want := range append(order, order[0]) {
		i := strings.Index(got[at:], want)
		if i < 0 {
			t.Fatalf("%q not said after what came before it:\n%s", want, got)
		}
		at += i + len(want)
	}

	// Back to the language button; Scan takes the next language.
	for range len(order) - 1 {
		phys.Tap(button.Cancel, false)
	}
	waitSaidCount(t, said, order[len(order)-1], 2)
	phys.Tap(button.Scan, false)
	waitSaid(t, said, "de|Deutsch")
	phys.Tap(button.Cancel, false)
	got = waitSaid(t, said, "de|Etikett scannen. Drücken Sie diese Taste")
	if strings.Contains(r.out.String(), "[reader armed") {
		t.Fatalf("the Scan press on the language button armed the reader:\n%s", r.out.String())
	}
	// On Scan, the Scan button is the reader's again.
	phys.Tap(button.Scan, false)
	r.waitOut("[reader armed", 1)
	if n := strings.Count(r.out.String(), "[reader armed"); n != 1 {
		t.Errorf("the reader was armed %d times, want once:\n%s", n, r.out.String())
	}
	if internals.MatchString(got) {
		t.Errorf("internals said:\n%s", got)
	}
	t.Logf("said:\n%s", got)
}

// TestFocusWalkSilent: without speech mode, a short Cancel moves the
// walked focus the page draws (the state's walked control), wrapping; a
// long one does not; on Read aloud and on the language button the Scan
// press is the page's and the bridge never reads it, nor its release; a
// touch of the screen ends the walk, and so does the end of the session.
func TestFocusWalkSilent(t *testing.T) {
	s := startKiosk(t, &kiosk.Options{Languages: []string{"en", "fr"}, Speech: true, SpeechCommand: []string{"true"}})
	tok := kioskToken(t, s)
	st, _ := openStream(t, s, tok, nil)
	defer st.close()
	st.next(t)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC}})
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	defer phys.Close()
	watched := s.Watch(phys)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	read := func(want button.Event) {
		t.Helper()
		ev, err := watched.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Control != want.Control || ev.Pressed != want.Pressed || ev.Long != want.Long {
			t.Fatalf("the bridge read %v, want %v", ev, want)
		}
	}
	walk := func(long bool) {
		t.Helper()
		phys.Tap(button.Cancel, long)
		read(button.Event{Control: button.Cancel, Pressed: true})
		if long {
			read(button.Event{Control: button.Cancel, Pressed: true, Long: true})
		}
		read(button.Event{Control: button.Cancel})
	}
	walked := func(want string) map[string]any {
		t.Helper()
		return st.until(t, func(v map[string]any) bool { return v["walked"] == want })
	}
	if v := st.until(t, func(v map[string]any) bool { return v["connection"].(map[string]any)["state"] == "connected" }); v["walked"] != "" {
		t.Fatalf("a session starts walked to %v", v["walked"])
	}
	for _, want := range []string{"scan", "photo", "talk", "cancel", "speech", "lang", "scan"} {
		walk(false)
		walked(want)
	}
	walk(true) // long: turns speech mode on, does not walk
	walk(false)
	if v := walked("photo"); v["walkSteps"] != float64(8) || v["speech"] != "on" {
		t.Errorf("walk steps %v after 8 short presses, speech %v", v["walkSteps"], v["speech"])
	}
	for range 3 {
		walk(false)
	}
	walked("speech")
	phys.Tap(button.Scan, false) // Read aloud off
	walk(false)
	walked("lang")
	phys.Tap(button.Scan, false)
	phys.Tap(button.Photo, false)
	read(button.Event{Control: button.Photo, Pressed: true}) // the Scan presses and their releases were the page's
	read(button.Event{Control: button.Photo})
	st.until(t, func(v map[string]any) bool { return v["lang"] == "fr" && v["speech"] == "off" && v["walked"] == "lang" })

	// A touch of the screen ends the walk: the on-screen Scan is the
	// reader's, whatever the walk rested on.
	if code, _ := post(t, s, "/api/press", tok, fmt.Sprintf(`{"page":%q,"control":"cancel","action":"tap"}`, st.page), nil); code != 200 {
		t.Fatalf("on-screen Cancel: status %d", code)
	}
	walked("")
	walk(false)
	walked("scan")
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "gone"})
	if v := walked(""); v["lang"] != "en" {
		t.Errorf("the session's end left the language %v", v["lang"])
	}
}
