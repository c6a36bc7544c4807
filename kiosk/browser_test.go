package kiosk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/kiosk/kiosktest"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// TestBrowserKiosk drives the page in Chromium against a bridge with the
// reference agent and the virtual reader.
func TestBrowserKiosk(t *testing.T) {
	start := time.Now()
	r := newRig(t)
	b := kiosktest.NewBrowser(t, "")
	b.Do(chromedp.Navigate(r.kiosk.URL()))
	b.Wait("connected", `document.getElementById('conn').dataset.state === 'connected' && !document.getElementById('btn-scan').disabled`)
	b.Shot("connected")

	// A page that is not in front cannot start a collection.
	hiddenPage(t, b, r)

	// Press scan on screen; the virtual tag is tapped; the agent answers.
	b.Click("#btn-scan")
	r.waitOut("[reader armed", 1)
	b.Wait("the armed banner", `!document.getElementById('armed').hidden && document.getElementById('reader').dataset.state === 'armed'`)
	b.Shot("armed")
	r.reader.Tap(canaryUID)
	b.WaitText("Unknown object; no association stored.")
	b.WaitText("Tag sent")
	b.Wait("the reader idle again", `document.getElementById('armed').hidden`)
	r.reader.Remove()
	b.Shot("answer")

	// An agent request: its prompt shows with its own control, which
	// answers it.
	b.Do(chromedp.SendKeys(chromedp.CSS("#say-text"), "scan an object"))
	b.Click("#say button")
	r.waitOut("agent asks:", 1)
	b.Wait("the prompt", `!document.getElementById('prompt').hidden && document.getElementById('prompt-button').dataset.control === 'scan'`)
	if got := kiosktest.Eval[string](b, `document.getElementById('prompt-text').textContent`); got != "Tap to collect." {
		t.Errorf("prompt text %q", got)
	}
	b.WaitText("scan an object") // the typed turn, as the bridge sent it
	b.Shot("prompt")
	b.Click("#prompt-button")
	r.waitOut("[reader armed", 2)
	r.reader.Tap(canaryUID)
	b.WaitText("Received the user-collected observation.")
	b.Wait("the prompt gone", `document.getElementById('prompt').hidden`)
	r.reader.Remove()
	if !strings.Contains(r.log.String(), "interactionId=turn-") {
		t.Errorf("the answer carried no interactionId:\n%s", r.log.String())
	}
	b.Shot("prompt-answered")

	// A request without the token, from the page's own origin: refused.
	status := kiosktest.Eval[int](b, `fetch('/api/press', {method: 'POST', headers: {'Content-Type': 'application/json'},
		body: JSON.stringify({page: 'x', control: 'scan', action: 'tap', visible: true, focused: true})}).then(r => r.status)`)
	if status != http.StatusForbidden {
		t.Errorf("press without the token: status %d, want 403", status)
	}

	// Another origin, even one that knows the token: refused.
	crossSite(t, b, r)

	// A name that points at loopback (DNS rebinding): refused.
	tab, closeTab := newTab(b)
	rebound, err := chromedp.RunResponse(tab, chromedp.Navigate(strings.Replace(r.kiosk.URL(), "127.0.0.1", kiosktest.RebindHost, 1)))
	closeTab()
	if err != nil {
		t.Fatal(err)
	}
	if rebound.Status != http.StatusMisdirectedRequest {
		t.Errorf("page under another host name: status %d, want 421", rebound.Status)
	}

	// The small screen of a Raspberry Pi display.
	b.Do(chromedp.EmulateViewport(800, 480))
	b.Shot("small-screen")
	b.Do(chromedp.EmulateViewport(1280, 800))

	html := kiosktest.Eval[string](b, `document.documentElement.outerHTML`)
	r.checkNoCanary(html, readState(t, r.kiosk))
	if n := strings.Count(r.out.String(), "[reader armed"); n != 2 {
		t.Errorf("the reader was armed %d times, want 2 (a refused press armed it?)", n)
	}
	t.Logf("browser test took %s", time.Since(start).Round(time.Millisecond))
}

// tab opens another tab in its own window (so the kiosk tab stays
// visible); cancel closes it.
func newTab(b *kiosktest.Browser) (context.Context, context.CancelFunc) {
	return chromedp.NewContext(b.Ctx)
}

// crossSite loads a page of another origin that tries the kiosk's API.
func crossSite(t *testing.T, b *kiosktest.Browser, r *rig) {
	refusedBefore := strings.Count(r.log.String(), "reason=origin")
	k := r.kiosk.URL()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		// The token is handed to this page to show that the Origin check
		// holds on its own.
		fmt.Fprintf(w, `<!doctype html><meta charset="utf-8"><title>other site</title><p id="out">pending</p><script>
const k = %q, tok = %q, res = [];
const body = JSON.stringify({page: 'x', control: 'scan', action: 'tap', visible: true, focused: true});
fetch(k + 'api/press', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Acbridge-Token': tok}, body})
  .then(r => res.push('cors:' + r.status), () => res.push('cors:blocked'))
  .then(() => fetch(k + 'api/press', {method: 'POST', mode: 'no-cors', headers: {'Content-Type': 'text/plain'}, body}))
  .then(() => res.push('simple:sent'), () => res.push('simple:blocked'))
  .then(() => new Promise(done => {
    const es = new EventSource(k + 'api/events?token=' + tok);
    es.onerror = () => { res.push('stream:' + es.readyState); es.close(); done(); };
    es.onmessage = () => { res.push('stream:open'); es.close(); done(); };
  }))
  .then(() => { document.getElementById('out').textContent = res.join(' '); });
</script>`, k, kioskToken(t, r.kiosk))
	}))
	defer evil.Close()
	tab, closeTab := newTab(b)
	defer closeTab()
	if err := chromedp.Do(tab, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(tab, 15*time.Second)
	defer cancel()
	out, err := chromedp.Run(ctx, chromedp.Poll[string](`(t => t !== 'pending' && t)(document.getElementById('out').textContent)`,
		chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the other site saw: %s", out)
	if !strings.Contains(out, "cors:blocked") || !strings.Contains(out, "stream:2") {
		t.Errorf("the other site's requests were not refused: %s", out)
	}
	// The simple POST and the stream reach the server, which refuses them
	// for their Origin (the CORS one is stopped by its preflight).
	if n := strings.Count(r.log.String(), "reason=origin") - refusedBefore; n < 2 {
		t.Errorf("%d requests refused for their origin, want 2:\n%s", n, r.log.String())
	}
}

// hiddenPage checks the foreground rule with the page really hidden: the
// kiosk tab is put behind another tab of its window, and with no focus.
func hiddenPage(t *testing.T, b *kiosktest.Browser, r *rig) {
	const (
		hidden    = `page focus" visible=false focused=false`
		unfocused = `page focus" visible=true focused=false`
		front     = `page focus" visible=true focused=true`
		refused   = `press refused: the page is not in the foreground" control=scan`
	)
	// Visible but without focus: headless Chromium gives its first window
	// no focus of its own, so without the emulation the page has none.
	b.Focus(false)
	b.Wait("the page unfocused", `document.visibilityState === 'visible' && !document.hasFocus()`)
	waitLog(t, r, unfocused, 1)
	// A real click would focus the window, as on a touch screen, so the
	// press comes from the page's script.
	kiosktest.Eval[any](b, `document.getElementById('btn-scan').click()`)
	waitLog(t, r, refused+" visible=true focused=false", 1)
	b.Wait("the refusal shown", `!document.getElementById('toast').hidden && document.getElementById('toast').textContent.includes('Touch the button again')`)
	b.Shot("refused-not-in-front")

	// Hidden behind another tab of its window: refused.
	cover, cancel := chromedp.NewContext(b.Ctx, chromedp.WithNewWindow(false))
	if err := chromedp.Do(cover, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	b.Wait("the page hidden", `document.visibilityState === 'hidden' && !document.hasFocus()`)
	waitLog(t, r, hidden, 1) // the page really reported itself hidden
	kiosktest.Eval[any](b, `document.getElementById('btn-scan').click()`)
	waitLog(t, r, refused+" visible=false focused=false", 1)
	if strings.Contains(r.out.String(), "[reader armed") {
		t.Fatalf("a page not in front armed the reader")
	}

	// In front and focused again.
	cancel()
	activate(t, b.Ctx)
	n := strings.Count(r.log.String(), front)
	b.Focus(true)
	b.Wait("the page in front", `document.visibilityState === 'visible' && document.hasFocus()`)
	waitLog(t, r, front, n+1)
}

// activate makes the tab of ctx the active one of the browser.
func activate(t *testing.T, ctx context.Context) {
	t.Helper()
	tid := chromedp.FromContext(ctx).Target.TargetID
	if _, err := chromedp.CallBrowser(ctx, target.ActivateTarget, target.ActivateTargetParams{TargetID: tid}); err != nil {
		t.Fatal(err)
	}
}

// waitLog waits until the log has n× sub.
func waitLog(t *testing.T, r *rig, sub string, n int) {
	t.Helper()
	waitIn(t, r.log, "the log", sub, n)
}

// waitIn waits up to 15 s until tr (named what) has n× sub.
func waitIn(t *testing.T, tr *bridgetest.Transcript, what, sub string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := tr.Wait(ctx, sub, n); err != nil {
		t.Fatalf("timed out waiting for %d× %q in %s:\n%s", n, sub, what, tr.String())
	}
}
