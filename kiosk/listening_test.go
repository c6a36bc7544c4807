package kiosk_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/kiosk/kiosktest"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
	"github.com/chromedp/chromedp"
)

// The page shows "listening" for exactly the open turn or engagement, also
// while a collection runs during it.
func TestListeningState(t *testing.T) {
	s := startKiosk(t, nil)
	s.Display(notice.Notice{Kind: notice.Connected, Text: "http://127.0.0.1:9", Modalities: []protocol.Modality{protocol.NFC}})
	if raw := readState(t, s); !strings.Contains(raw, `"listening":""`) {
		t.Fatalf("listening before a press:\n%s", raw)
	}
	s.Display(notice.Notice{Kind: notice.Armed, Control: "talk", Text: "listening: speak to the agent"})
	s.Display(notice.Notice{Kind: notice.Armed, Control: "scan", Text: "reader armed for 15s: tap a tag"})
	s.Display(notice.Notice{Kind: notice.Sent, Control: "scan"})
	raw := readState(t, s)
	if !strings.Contains(raw, `"listening":"Listening — speak now."`) || !strings.Contains(raw, `"armed":null`) {
		t.Fatalf("a scan during an engagement hid it:\n%s", raw)
	}
	s.Display(notice.Notice{Kind: notice.Disarmed, Control: "talk", Text: "stopped listening"})
	if raw := readState(t, s); !strings.Contains(raw, `"listening":""`) {
		t.Fatalf("still listening after the engagement:\n%s", raw)
	}
	s.Display(notice.Notice{Kind: notice.Armed, Control: "talk", Text: "listening: speak, then let go of TALK"})
	s.Display(notice.Notice{Kind: notice.Disconnected, Text: "connection lost"})
	if raw := readState(t, s); !strings.Contains(raw, `"listening":""`) {
		t.Fatalf("still listening after the session ended:\n%s", raw)
	}
}

// The page's listening banner and the talk control's pressed state follow
// the microphone.
func TestBrowserListening(t *testing.T) {
	s := startKiosk(t, nil)
	b := kiosktest.NewBrowser(t, "listening")
	b.Do(chromedp.Navigate(s.URL()))
	s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: []protocol.Modality{protocol.Photo}})
	b.Wait("connected", `document.getElementById('conn').dataset.state === 'connected'`)
	if !kiosktest.Eval[bool](b, `document.getElementById('listening').hidden`) {
		t.Fatal("the page says listening before a press")
	}
	s.Display(notice.Notice{Kind: notice.Armed, Control: "talk", Text: "listening: speak to the agent; press TALK again when you are done"})
	b.Wait("the listening banner", `!document.getElementById('listening').hidden &&
		document.getElementById('btn-talk').getAttribute('aria-pressed') === 'true'`)
	if got := kiosktest.Eval[string](b, `document.getElementById('listening-text').textContent`); got != "Listening — speak now." {
		t.Errorf("listening banner %q", got)
	}
	b.Shot("listening")
	s.Display(notice.Notice{Kind: notice.Disarmed, Control: "talk", Text: "stopped listening"})
	b.Wait("the banner gone", `document.getElementById('listening').hidden &&
		document.getElementById('btn-talk').getAttribute('aria-pressed') === 'false'`)
}

// A collection that failed on a problem staff fix is said for a person:
// the health registry's words, not the operator's command.
func TestProblemSaidForAPerson(t *testing.T) {
	s := startKiosk(t, nil)
	s.Display(notice.Notice{Kind: notice.Disarmed, Control: "scan", Code: nfc.WarnPCSCD.Code,
		Text: "scan: " + nfc.WarnPCSCD.Err("nfc").Error()})
	raw := readState(t, s)
	if !strings.Contains(raw, nfc.WarnPCSCD.Person) || strings.Contains(raw, "systemctl") {
		t.Fatalf("page state:\n%s", raw)
	}
}
