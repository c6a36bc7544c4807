package kiosk_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
	"github.com/chromedp/chromedp"
)

// sizes are the screens the page is checked on: the Raspberry Pi touch
// display, a 7-inch 1024×600 panel and a 1280×800 one.
var sizes = [][2]int64{{800, 480}, {1024, 600}, {1280, 800}}

// pageState is one state of the page, reached from the one before it by
// notices.
type pageState struct {
	name  string
	do    func(s *kiosk.Server)
	ready string // true once the page shows it
}

var both = []protocol.Modality{protocol.NFC, protocol.Photo}

// states is every state the page can show, in an order the bridge could
// send them.
var states = []pageState{
	{"starting", func(*kiosk.Server) {}, `document.getElementById('conn').dataset.state === 'connecting'`},
	{"ready", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example", Modalities: both})
		s.Display(notice.Notice{Kind: notice.Hint, Control: button.Talk, Text: "hold TALK to speak to the agent"})
	}, `!document.getElementById('btn-talk').disabled`},
	{"reader-on", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Armed, Control: button.Scan, Text: "reader armed for 15s: tap a tag"})
	}, `!document.getElementById('armed').hidden && /(^|\D)1[0-5](\D|$)/.test(document.getElementById('armed-left').textContent)`}, // counting down from 15
	{"answer", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Sent, Control: button.Scan})
		s.Display(notice.Notice{Kind: notice.User, Text: "What is this?"})
		for _, w := range strings.Fields(longAnswer) {
			s.Display(notice.Notice{Kind: notice.AgentText, Text: w + " "})
		}
		s.Display(notice.Notice{Kind: notice.RunDone})
	}, `document.getElementById('armed').hidden && !document.querySelector('.entry.agent.open') && document.querySelector('.entry.agent') !== null`},
	{"photo-prompt", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Prompt, Text: "Hold the object in front of the camera, then press the button.", Control: button.Photo})
	}, `!document.getElementById('prompt').hidden`},
	{"taking-photo", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Armed, Control: button.Photo})
	}, `document.getElementById('camera').dataset.state === 'armed'`},
	{"problem", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Sent, Control: button.Photo})
		s.Display(notice.Notice{Kind: notice.Resolved})
		s.Display(notice.Notice{Kind: notice.Failure, Code: protocol.CodeImageJPEG, Text: "image.jpeg: bad marker"})
	}, `document.querySelector('.entry.failure') !== null && document.getElementById('prompt').hidden`},
	{"listening", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Armed, Control: button.Talk})
	}, `!document.getElementById('listening').hidden`},
	{"text-only-agent", func(s *kiosk.Server) {
		s.Display(notice.Notice{Kind: notice.Connected, Text: "https://agent.example"})
		s.Display(notice.Notice{Kind: notice.Prompt, Text: "Tap to collect.", Control: button.Scan})
	}, `document.getElementById('btn-scan').disabled && document.getElementById('reason-talk').textContent !== ''`},
	{"unreachable", unreachable, `document.getElementById('conn').dataset.state === 'disconnected' && !document.getElementById('offline').hidden`},
}

const longAnswer = "This is a cordless drill from the workshop. Charge it on the station by the door; the red light turns green when it is full. " +
	"Wear the safety glasses from the rack before you use it, and put it back on its hook when you are done so that the next person finds it."

// TestBrowserStates shows every state of the page in every language,
// right to left too, with the text box, at three screen sizes. In each:
// axe-core finds nothing at WCAG 2.2 AA, every text has ≥ 4.5:1 contrast
// and ≥ 18 px, every control ≥ 44×44 px, nothing lies outside the screen
// and the newest line of the conversation is fully visible. `make
// screenshots` keeps a screenshot of each.
func TestBrowserStates(t *testing.T) {
	start := time.Now()
	for _, lang := range kiosk.Languages() {
		t.Run(lang, func(t *testing.T) {
			o := &kiosk.Options{Language: lang, Languages: []string{"en", "de", "fr", "es"}, TextBox: true,
				Speech: true, SpeechCommand: []string{"true"}}
			if lang == kiosk.PseudoRTL {
				o.Languages = nil // a test language: not offered
			}
			s := startKiosk(t, o)
			b := kiosktest.NewBrowser(t, "states/"+lang)
			b.Do(chromedp.Navigate(s.URL()))
			for _, st := range states {
				st.do(s)
				b.Wait(st.name, st.ready)
				checkState(t, b, lang, st.name)
			}
		})
	}
	t.Logf("states test took %s", time.Since(start).Round(time.Millisecond))
}

// checkState runs the checks of one state at every size.
func checkState(t *testing.T, b *kiosktest.Browser, lang, name string) {
	t.Helper()
	if got := kiosktest.Eval[string](b, `document.documentElement.lang + ' ' + document.documentElement.dir`); !strings.HasPrefix(got, lang+" ") {
		t.Errorf("%s/%s: html lang and dir %q", lang, name, got)
	}
	for _, sz := range sizes {
		b.Do(chromedp.EmulateViewport(sz[0], sz[1]))
		b.Wait("the layout at the new size", fmt.Sprintf(`innerWidth === %d && innerHeight === %d`, sz[0], sz[1]))
		where := fmt.Sprintf("%s/%s at %d×%d", lang, name, sz[0], sz[1])
		// Two frames: the page's own reaction to the new size (the
		// conversation scrolled to its newest line) is drawn.
		kiosktest.Eval[any](b, `new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))`)
		for _, p := range kiosktest.Eval[[]string](b, layoutChecks) {
			t.Errorf("%s: %s", where, p)
		}
		if os.Getenv("ACBRIDGE_SCREENSHOTS") != "" { // make screenshots; saves a minute in make test
			b.Shot(fmt.Sprintf("%s-%dx%d", name, sz[0], sz[1]))
		}
		// axe-core at the small screen, in every state and language: the
		// words differ, and with them lengths, wrapping and overlaps. The
		// script is injected once per page (Axe) and reused.
		if sz[0] == 800 {
			for _, v := range b.Axe() {
				t.Errorf("%s: axe: %s", where, v)
			}
		}
	}
}

// layoutChecks lists, in the page, what breaks the rules of the screen.
// Contrast is computed from each text's computed colour and the first
// opaque background behind it (WCAG 2.2 relative luminance).
const layoutChecks = `(() => {
  const out = [];
  const vw = innerWidth, vh = innerHeight;
  const rgba = (c) => { const m = c.match(/[\d.]+/g).map(Number); return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const lum = ([r, g, b]) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const bgOf = (el) => { for (let e = el; e; e = e.parentElement) { const c = rgba(getComputedStyle(e).backgroundColor); if (c[3] > 0.5) return c; }
    return rgba(getComputedStyle(document.body).backgroundColor); };
  const name = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase() + '.' + [...el.classList].join('.');
  const shown = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden' && !el.closest('.sr-only');
  if (document.documentElement.scrollHeight > vh + 1 || document.documentElement.scrollWidth > vw + 1) out.push('the page scrolls');
  const conv = document.getElementById('conversation');
  for (const el of document.querySelectorAll('body *')) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    const inConv = conv.contains(el) && el !== conv;
    if (!inConv && (r.left < -1 || r.top < -1 || r.right > vw + 1 || r.bottom > vh + 1)) out.push(name(el) + ' lies outside the screen');
    if (el.matches('button') && (r.width < 44 || r.height < 44)) out.push(name(el) + ' is smaller than 44×44 px');
    if (el.matches('button, .pill') && el.scrollWidth > el.clientWidth + 1) out.push(name(el) + ' clips its words');
    const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!text) continue;
    const cs = getComputedStyle(el);
    if (parseFloat(cs.fontSize) < 18) out.push(name(el) + ' text is ' + cs.fontSize);
    const fg = rgba(cs.color), bg = bgOf(el);
    const a = fg[3] * parseFloat(cs.opacity);
    const mix = fg.slice(0, 3).map((v, i) => v * a + bg[i] * (1 - a));
    const l1 = lum(mix), l2 = lum(bg), ratio = (Math.max(l1, l2) + 0.05) / (Math.min(l1, l2) + 0.05);
    if (ratio < 4.5) out.push(name(el) + ' contrast ' + ratio.toFixed(2) + ' (' + cs.color + ' on rgb(' + bg.slice(0, 3) + '))');
  }
  const entries = document.querySelectorAll('#log .entry');
  const newest = entries[entries.length - 1];
  if (newest && shown(newest)) {
    const c = conv.getBoundingClientRect(), r = newest.getBoundingClientRect();
    if (r.bottom > c.bottom + 1 || (r.top < c.top - 1 && r.height <= c.height)) out.push('the newest line is not fully visible');
  }
  return out;
})()`
