package kiosk_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium with one tab on the kiosk page.
type browser struct {
	t      *testing.T
	ctx    context.Context // the page's tab
	shots  string
	nshots int
}

// chromiumPath finds Debian's Chromium. The test skips without it only when
// services are not required (a developer's machine); `make test` installs
// it and sets ACBRIDGE_REQUIRE_SERVICES, so there it fails instead.
func chromiumPath(t *testing.T) string {
	for _, p := range []string{"chromium", "/usr/bin/chromium"} {
		if path, err := exec.LookPath(p); err == nil {
			return path
		}
	}
	if os.Getenv("ACBRIDGE_REQUIRE_SERVICES") != "" {
		t.Fatal("chromium is not installed: apt-get install chromium (scripts/install-deps.sh test)")
	}
	t.Skip("chromium is not installed (apt-get install chromium); set ACBRIDGE_REQUIRE_SERVICES=1 to fail instead")
	return ""
}

// screenshotDir is ACBRIDGE_SCREENSHOTS (kept: `make screenshots`) or a
// directory of the test's own.
func screenshotDir(t *testing.T) string {
	if d := os.Getenv("ACBRIDGE_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// newBrowser starts Chromium as CI runs it: as root (no sandbox), without
// a GPU, and with nothing that reaches for the network on its own (this
// machine has none). rebindHost resolves to loopback, for the DNS-rebinding
// check.
func newBrowser(t *testing.T, prefix string) *browser {
	t.Helper()
	exe := chromiumPath(t)
	actx, acancel := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("host-resolver-rules", "MAP "+rebindHost+" 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	b := &browser{t: t, ctx: ctx, shots: screenshotDir(t)}
	if prefix != "" {
		b.shots = filepath.Join(b.shots, prefix)
	}
	// The first Run starts the browser: no timeout on it (chromedp stops
	// the browser with that context).
	b.do(chromedp.EmulateViewport(1280, 800))
	b.focus(true)
	return b
}

const rebindHost = "rebind.test"

func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// focus turns on or off the emulation of a focused window. Headless
// Chromium has no focused window of its own: with emulation off, the page is
// visible but document.hasFocus() is false.
func (b *browser) focus(on bool) {
	b.t.Helper()
	if _, err := chromedp.Call(b.ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: on}); err != nil {
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page (awaiting a promise).
func eval[T any](b *browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// wait waits until the JavaScript expression is true. It polls on a timer,
// not on animation frames, so it also works while the page is hidden.
func (b *browser) wait(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		log, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
		b.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, log)
	}
}

// waitText waits until the conversation shows text.
func (b *browser) waitText(text string) {
	b.t.Helper()
	b.wait(fmt.Sprintf("%q on the page", text), fmt.Sprintf(`document.getElementById('log').innerText.includes(%q)`, text))
}

// shot saves a screenshot of the viewport as NN-name.png.
func (b *browser) shot(name string) {
	b.t.Helper()
	// Let a last state update paint.
	time.Sleep(150 * time.Millisecond)
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.MkdirAll(b.shots, 0o755); err != nil {
		b.t.Fatal(err)
	}
	b.nshots++
	path := filepath.Join(b.shots, fmt.Sprintf("%02d-%s.png", b.nshots, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot %s", path)
}

func (b *browser) click(sel string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(sel)))
}

// TestBrowserKiosk drives the page in Chromium against a bridge with the
// reference agent and the virtual reader.
func TestBrowserKiosk(t *testing.T) {
	start := time.Now()
	r := newRig(t)
	b := newBrowser(t, "")
	b.do(chromedp.Navigate(r.kiosk.URL()))
	b.wait("connected", `document.getElementById('conn').dataset.state === 'connected' && !document.getElementById('btn-scan').disabled`)
	b.shot("connected")

	// A page that is not in front cannot start a collection.
	hiddenPage(t, b, r)

	// Press scan on screen; the virtual tag is tapped; the agent answers.
	b.click("#btn-scan")
	r.waitOut("[reader armed", 1)
	b.wait("the armed banner", `!document.getElementById('armed').hidden && document.getElementById('reader').dataset.state === 'armed'`)
	b.shot("armed")
	r.reader.Tap(canaryUID)
	b.waitText("Unknown object; no association stored.")
	b.waitText("tag sent")
	b.wait("the reader idle again", `document.getElementById('armed').hidden`)
	r.reader.Remove()
	b.shot("answer")

	// An agent request: its prompt shows with its own control, which
	// answers it.
	b.do(chromedp.SendKeys(chromedp.CSS("#say-text"), "scan an object"))
	b.click("#say button")
	r.waitOut("agent asks:", 1)
	b.wait("the prompt", `!document.getElementById('prompt').hidden && document.getElementById('prompt-button').dataset.control === 'scan'`)
	if got := eval[string](b, `document.getElementById('prompt-text').textContent`); got != "Tap to collect." {
		t.Errorf("prompt text %q", got)
	}
	b.waitText("scan an object") // the typed turn, as the bridge sent it
	b.shot("prompt")
	b.click("#prompt-button")
	r.waitOut("[reader armed", 2)
	r.reader.Tap(canaryUID)
	b.waitText("Received the user-collected observation.")
	b.wait("the prompt gone", `document.getElementById('prompt').hidden`)
	r.reader.Remove()
	if !strings.Contains(r.log.String(), "interactionId=turn-") {
		t.Errorf("the answer carried no interactionId:\n%s", r.log.String())
	}
	b.shot("prompt-answered")

	// A request without the token, from the page's own origin: refused.
	status := eval[int](b, `fetch('/api/press', {method: 'POST', headers: {'Content-Type': 'application/json'},
		body: JSON.stringify({page: 'x', control: 'scan', action: 'tap', visible: true, focused: true})}).then(r => r.status)`)
	if status != http.StatusForbidden {
		t.Errorf("press without the token: status %d, want 403", status)
	}

	// Another origin, even one that knows the token: refused.
	crossSite(t, b, r)

	// A name that points at loopback (DNS rebinding): refused.
	tab, closeTab := b.tab()
	rebound, err := chromedp.RunResponse(tab, chromedp.Navigate(strings.Replace(r.kiosk.URL(), "127.0.0.1", rebindHost, 1)))
	closeTab()
	if err != nil {
		t.Fatal(err)
	}
	if rebound.Status != http.StatusMisdirectedRequest {
		t.Errorf("page under another host name: status %d, want 421", rebound.Status)
	}

	// The small screen of a Raspberry Pi display.
	b.do(chromedp.EmulateViewport(800, 480))
	b.shot("small-screen")
	b.do(chromedp.EmulateViewport(1280, 800))

	html := eval[string](b, `document.documentElement.outerHTML`)
	r.checkNoCanary(html, readState(t, r.kiosk))
	if n := strings.Count(r.out.String(), "[reader armed"); n != 2 {
		t.Errorf("the reader was armed %d times, want 2 (a refused press armed it?)", n)
	}
	t.Logf("browser test took %s", time.Since(start).Round(time.Millisecond))
}

// tab opens another tab in its own window (so the kiosk tab stays
// visible); cancel closes it.
func (b *browser) tab() (context.Context, context.CancelFunc) {
	return chromedp.NewContext(b.ctx)
}

// crossSite loads a page of another origin that tries the kiosk's API.
func crossSite(t *testing.T, b *browser, r *rig) {
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
	tab, closeTab := b.tab()
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
func hiddenPage(t *testing.T, b *browser, r *rig) {
	const (
		hidden    = `page focus" visible=false focused=false`
		unfocused = `page focus" visible=true focused=false`
		front     = `page focus" visible=true focused=true`
		refused   = `press refused: the page is not in the foreground" control=scan`
	)
	// Visible but without focus: headless Chromium gives its first window
	// no focus of its own, so without the emulation the page has none.
	b.focus(false)
	b.wait("the page unfocused", `document.visibilityState === 'visible' && !document.hasFocus()`)
	waitLog(t, r, unfocused, 1)
	// A real click would focus the window, as on a touch screen, so the
	// press comes from the page's script.
	eval[any](b, `document.getElementById('btn-scan').click()`)
	waitLog(t, r, refused+" visible=true focused=false", 1)
	b.wait("the refusal shown", `!document.getElementById('toast').hidden && document.getElementById('toast').textContent.includes('must be in front')`)
	b.shot("refused-not-in-front")

	// Hidden behind another tab of its window: refused.
	cover, cancel := chromedp.NewContext(b.ctx, chromedp.WithNewWindow(false))
	if err := chromedp.Do(cover, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	b.wait("the page hidden", `document.visibilityState === 'hidden' && !document.hasFocus()`)
	waitLog(t, r, hidden, 1) // the page really reported itself hidden
	eval[any](b, `document.getElementById('btn-scan').click()`)
	waitLog(t, r, refused+" visible=false focused=false", 1)
	if strings.Contains(r.out.String(), "[reader armed") {
		t.Fatalf("a page not in front armed the reader")
	}

	// In front and focused again.
	cancel()
	activate(t, b.ctx)
	n := strings.Count(r.log.String(), front)
	b.focus(true)
	b.wait("the page in front", `document.visibilityState === 'visible' && document.hasFocus()`)
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
	deadline := time.Now().Add(10 * time.Second)
	for strings.Count(r.log.String(), sub) < n {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %d× %q in the log:\n%s", n, sub, r.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
