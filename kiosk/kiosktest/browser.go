// Package kiosktest drives the kiosk page in Debian's headless Chromium
// through chromedp, for the kiosk's own browser tests and the daemon's.
package kiosktest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// browser is a headless Chromium with one tab on the kiosk page.
type Browser struct {
	t testing.TB
	// Ctx is the page's tab.
	Ctx    context.Context
	shots  string
	nshots int
}

// ChromiumPath finds Debian's Chromium. The test skips without it only when
// services are not required (a developer's machine); `make test` installs
// it and sets ACBRIDGE_REQUIRE_SERVICES, so there it fails instead.
func ChromiumPath(t testing.TB) string {
	t.Helper()
	return needs.Tool(t, "chromium", "chromium", "/usr/bin/chromium")
}

// ScreenshotDir is ACBRIDGE_SCREENSHOTS (kept: `make screenshots`) or a
// directory of the test's own.
func ScreenshotDir(t testing.TB) string {
	if d := os.Getenv("ACBRIDGE_SCREENSHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// NewBrowser starts Chromium as CI runs it: as root (no sandbox), without
// a GPU, and with nothing that reaches for the network on its own (this
// machine has none). RebindHost resolves to loopback, for the DNS-rebinding
// check.
func NewBrowser(t testing.TB, prefix string) *Browser {
	t.Helper()
	exe := ChromiumPath(t)
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
		chromedp.Flag("host-resolver-rules", "MAP "+RebindHost+" 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
	)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); acancel() })
	b := &Browser{t: t, Ctx: ctx, shots: ScreenshotDir(t)}
	if prefix != "" {
		b.shots = filepath.Join(b.shots, prefix)
	}
	// The first Run starts the browser: no timeout on it (chromedp stops
	// the browser with that context).
	b.Do(chromedp.EmulateViewport(1280, 800))
	b.Focus(true)
	return b
}

// RebindHost resolves to 127.0.0.1 in the browser, for DNS-rebinding checks.
const RebindHost = "rebind.test"

// Do runs actions in the page.
func (b *Browser) Do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.Ctx, steps...); err != nil {
		b.t.Fatal(err)
	}
}

// Focus turns on or off the emulation of a focused window. Headless
// Chromium has no focused window of its own: with emulation off, the page is
// visible but document.hasFocus() is false.
func (b *Browser) Focus(on bool) {
	b.t.Helper()
	if _, err := chromedp.Call(b.Ctx, emulation.SetFocusEmulationEnabled, emulation.SetFocusEmulationEnabledParams{Enabled: on}); err != nil {
		b.t.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise).
func Eval[T any](b *Browser, expr string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.Ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// Wait waits until the JavaScript expression is true. It polls on a timer,
// not on animation frames, so it also works while the page is hidden.
func (b *Browser) Wait(what, expr string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.Ctx, 15*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		log, _ := chromedp.Run(b.Ctx, chromedp.Evaluate[string](`document.body.innerText`))
		b.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, expr, err, log)
	}
}

// WaitText waits until the conversation shows text.
func (b *Browser) WaitText(text string) {
	b.t.Helper()
	b.Wait(fmt.Sprintf("%q on the page", text), fmt.Sprintf(`document.getElementById('log').innerText.includes(%q)`, text))
}

// Shot saves a screenshot of the viewport as NN-name.png.
func (b *Browser) Shot(name string) {
	b.t.Helper()
	// Let a last state update paint.
	time.Sleep(150 * time.Millisecond)
	png, err := chromedp.Run(b.Ctx, chromedp.CaptureScreenshot())
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

// Click clicks the element sel selects.
func (b *Browser) Click(sel string) {
	b.t.Helper()
	b.Do(chromedp.Click(chromedp.CSS(sel)))
}
