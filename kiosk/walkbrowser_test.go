package kiosk_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// TestBrowserFocusWalk: in Chromium, the page's focus follows the walk the
// physical Cancel makes, each walked control has the focus ring at ≥ 3:1
// against what is around it (WCAG 2.4.7, 2.4.11, 2.4.13), a disabled one
// too (it cannot hold the focus); Scan on the language button changes the
// page's language without arming the reader; a touch ends the walk.
func TestBrowserFocusWalk(t *testing.T) {
	phys := button.NewDebouncer(&button.Options{Debounce: -1, LongPress: -1})
	r := newRigWith(t, &kiosk.Options{TextBox: true, Languages: []string{"en", "de"}}, phys)
	b := kiosktest.NewBrowser(t, "walk")
	b.Do(chromedp.Navigate(r.kiosk.URL()))
	b.Wait("connected", `document.getElementById('conn').dataset.state === 'connected' && !document.getElementById('btn-scan').disabled`)
	if kiosktest.Eval[bool](b, `!!document.querySelector('.walked')`) {
		t.Fatal("a control is walked before any press")
	}

	// The rig has no microphone: Talk is disabled, and the walk rests on
	// it all the same.
	for _, c := range []struct {
		id        string
		focusable bool
	}{{"btn-scan", true}, {"btn-photo", true}, {"btn-talk", false}, {"btn-cancel", true}, {"btn-lang", true}} {
		phys.Tap(button.Cancel, false)
		focus := fmt.Sprintf(`document.activeElement.id === %q`, c.id)
		if !c.focusable {
			focus = `document.activeElement === document.body`
		}
		b.Wait("the walk on "+c.id, fmt.Sprintf(`document.querySelector('.walked')?.id === %q && %s`, c.id, focus))
		checkRing(t, b)
	}
	b.Shot("language-walked")

	phys.Tap(button.Scan, false)
	b.Wait("German", `document.documentElement.lang === 'de' && document.activeElement.id === 'btn-lang'`)
	phys.Tap(button.Cancel, false) // wraps
	b.Wait("the walk back on Scan", `document.activeElement.id === 'btn-scan' && document.querySelector('.walked')?.id === 'btn-scan'`)
	if strings.Contains(r.out.String(), "[reader armed") {
		t.Fatalf("the Scan press on the language button armed the reader:\n%s", r.out.String())
	}

	b.Click("#btn-cancel")
	b.Wait("the walk ended by a touch", `!document.querySelector('.walked')`)
}

// checkRing checks the walked control's outline and its contrast against
// the background of the nearest ancestor that has one.
func checkRing(t *testing.T, b *kiosktest.Browser) {
	t.Helper()
	got := kiosktest.Eval[string](b, `(() => {
		const el = document.querySelector('.walked');
		const s = getComputedStyle(el);
		let p = el.parentElement, bg = 'rgba(0, 0, 0, 0)';
		while (p && (bg = getComputedStyle(p).backgroundColor) === 'rgba(0, 0, 0, 0)') p = p.parentElement;
		return [el.id, s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor, bg].join('|');
	})()`)
	f := strings.Split(got, "|")
	ring, bg := rgbHex(f[3]), rgbHex(f[4])
	if width, _ := strconv.ParseFloat(f[2], 64); f[1] != "solid" || width < 3 || ring == "" || bg == "" {
		t.Fatalf("%s: no focus ring drawn: %s", f[0], got)
	}
	if c := contrast(ring, bg); c < 3 {
		t.Errorf("%s: the ring %s on %s is %.2f:1, want ≥ 3:1", f[0], ring, bg, c)
	}
}

// rgbHex turns a computed "rgb(r, g, b)" colour into "#rrggbb" ("" if it
// is not opaque rgb).
func rgbHex(css string) string {
	var r, g, bl int
	if n, _ := fmt.Sscanf(css, "rgb(%d, %d, %d)", &r, &g, &bl); n != 3 {
		return ""
	}
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}
