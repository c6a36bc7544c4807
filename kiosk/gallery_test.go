package kiosk_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/poll"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserGallery renders the states the bridge test does not reach
// (a photo request, a failure, a lost agent, a lost acbridge) from notices,
// with the default options (no text box), for the screenshots.
func TestBrowserGallery(t *testing.T) {
	s := startKiosk(t, nil)
	b := kiosktest.NewBrowser(t, "gallery")
	b.Do(chromedp.Navigate(s.URL()))
	b.Wait("the first state", `document.getElementById('conn').dataset.state === 'connecting'`)
	if kiosktest.Eval[bool](b, `!!document.getElementById('say')`) {
		t.Error("a text box without Options.TextBox")
	}

	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC, protocol.Photo}})
	s.Display(notice.Notice{Kind: notice.User, Text: "What is this?"})
	s.Display(notice.Notice{Kind: notice.AgentText, Text: "I can tell you once I see it. "})
	s.Display(notice.Notice{Kind: notice.AgentText, Text: "Please show it to the camera."})
	s.Display(notice.Notice{Kind: notice.RunDone})
	s.Display(notice.Notice{Kind: notice.Prompt, Text: "Hold the object in front of the camera, then press the button.", Control: "photo"})
	b.Wait("the photo prompt", `!document.getElementById('prompt').hidden && document.getElementById('prompt-button').dataset.control === 'photo'`)
	if got := kiosktest.Eval[string](b, `document.getElementById('prompt-button').innerText.trim()`); got != "Take a photo" {
		t.Errorf("prompt control %q", got)
	}
	b.Shot("photo-prompt")

	s.Display(notice.Notice{Kind: notice.Armed, Control: "photo", Text: "taking a photo"})
	b.Wait("the camera armed", `document.getElementById('camera').dataset.state === 'armed'`)
	b.Shot("taking-photo")

	s.Display(notice.Notice{Kind: notice.Sent, Control: "photo", Text: "photo sent"})
	s.Display(notice.Notice{Kind: notice.Resolved})
	s.Display(notice.Notice{Kind: notice.Failure, Code: protocol.CodeImageJPEG, Text: "The image could not be decoded."})
	b.WaitText("The assistant could not read what was sent.")
	b.WaitText("Photo sent")
	b.Shot("failure")

	// A long answer streamed in pieces; the oldest lines scroll away.
	for i := 0; i < 6; i++ {
		s.Display(notice.Notice{Kind: notice.User, Text: "teach object Workshop router"})
		for _, w := range strings.Fields("Proposed Workshop router; confirm object to save it for this session. It stays on this kiosk until the session ends.") {
			s.Display(notice.Notice{Kind: notice.AgentText, Text: w + " "})
		}
		if i < 5 {
			s.Display(notice.Notice{Kind: notice.RunDone})
		}
	}
	b.Wait("the answer streaming", `document.querySelector('.entry.agent.open') !== null`)
	b.Shot("streaming")
	s.Display(notice.Notice{Kind: notice.RunDone})

	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "client: dial tcp 192.0.2.10:443: connect: connection refused — retrying in 4.2s"})
	b.Wait("disconnected", `document.getElementById('conn').dataset.state === 'disconnected' && document.getElementById('btn-scan').disabled`)
	b.Shot("disconnected")

	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.NFC}})
	s.Display(notice.Notice{Kind: notice.Prompt, Text: "Tap to collect.", Control: "scan"})
	b.Wait("a fresh session", `document.getElementById('log').children.length === 0 && !document.getElementById('prompt').hidden`)
	if !kiosktest.Eval[bool](b, `document.getElementById('btn-photo').disabled`) {
		t.Error("photo enabled in a session without the camera")
	}
	b.Do(chromedp.EmulateViewport(800, 480))
	b.Shot("small-prompt")
	// Touch targets: every control shown is at least 44 px high and wide
	// (WCAG 2.5.5), the bottom row's 64 px, also on the small screen.
	small := kiosktest.Eval[[]string](b, `[...document.querySelectorAll('button')].filter(b => {
		const r = b.getBoundingClientRect(), min = b.classList.contains('control') ? 64 : 44;
		return b.offsetParent !== null && (r.height < min || r.width < min) }).map(b => b.id || b.textContent.trim())`)
	if len(small) > 0 {
		t.Errorf("controls too small on 800×480: %v", small)
	}
	b.Do(chromedp.EmulateViewport(1280, 800))

	// Keyboard: after the prompt's control, Tab reaches the conversation
	// (it scrolls) and then the controls, and focus is visible.
	kiosktest.Eval[any](b, `document.getElementById('prompt-button').focus()`)
	b.Do(chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Tab))
	if got := kiosktest.Eval[string](b, `document.activeElement.id + ' ' + document.activeElement.matches(':focus-visible') + ' ' +
		getComputedStyle(document.activeElement).outlineStyle`); got != "btn-scan true solid" {
		t.Errorf("after Tab: focus, focus-visible and outline %q", got)
	}
	b.Shot("keyboard-focus")
	s.Close()
	b.Wait("offline", `document.getElementById('conn').dataset.state === 'offline'`)
	b.Shot("offline")

	// acbridge starts again on the same address, with a new token: the page
	// reloads itself and works with it.
	s2 := startKiosk(t, &kiosk.Options{Listen: s.Addr()})
	tok := kioskToken(t, s2)
	// Evaluated again and again: Chromium (a real process) reloads the
	// page on its own, and the reload destroys the page's JavaScript
	// context under a running evaluation.
	var got string
	var err error
	if !poll.Until(20*time.Second, 100*time.Millisecond, func() bool {
		got, err = chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.querySelector('meta[name="acbridge-token"]').content + ' ' +
			document.getElementById('conn').dataset.state`))
		return err == nil && got == tok+" connecting"
	}) {
		t.Fatalf("the page did not reload for the new start: %q %v", got, err)
	}
}
