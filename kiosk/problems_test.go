package kiosk_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/kiosk"
	"github.com/agentcall/acbridge/kiosk/kiosktest"

	"github.com/chromedp/chromedp"
)

// problemsOf returns the page's current problems as code → text.
func problemsOf(v map[string]any) map[string]string {
	out := map[string]string{}
	ps, _ := v["problems"].([]any)
	for _, p := range ps {
		m, _ := p.(map[string]any)
		code, _ := m["code"].(string)
		text, _ := m["text"].(string)
		out[code] = text
	}
	return out
}

// A problem the tracker holds is on the page, in the visitor's words and
// language, from the moment it is set until it is cleared; the operator's
// detail never reaches the page.
func TestPageShowsTrackedProblems(t *testing.T) {
	const detail = "camera: VIDIOC_DQBUF: no such device /dev/video0"
	for _, tc := range []struct{ lang, want string }{
		{"en", camera.WarnUnplugged.Person},
		{"de", "Die Kamera ist nicht verfügbar. Bitte sagen Sie dem Personal Bescheid."},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			problems := &health.Tracker{}
			// A problem set before the page starts is shown on its first
			// state.
			problems.Set(camera.WarnBusy, detail)
			s := startKiosk(t, &kiosk.Options{Health: problems, Languages: []string{"en", "de"}, Language: tc.lang})
			st, status := openStream(t, s, kioskToken(t, s), nil)
			if st == nil {
				t.Fatalf("stream status %d", status)
			}
			v := st.until(t, func(v map[string]any) bool { return len(problemsOf(v)) == 1 })
			if got := problemsOf(v)[camera.WarnBusy.Code]; got == "" {
				t.Fatalf("problems on the first state: %v", problemsOf(v))
			}

			problems.Set(camera.WarnUnplugged, detail)
			v = st.until(t, func(v map[string]any) bool { return len(problemsOf(v)) == 2 })
			if got := problemsOf(v)[camera.WarnUnplugged.Code]; got != tc.want {
				t.Errorf("camera.unplugged says %q, want %q", got, tc.want)
			}
			problems.Clear(camera.WarnBusy)
			v = st.until(t, func(v map[string]any) bool { return len(problemsOf(v)) == 1 })
			if _, ok := problemsOf(v)[camera.WarnUnplugged.Code]; !ok {
				t.Errorf("the wrong problem was cleared: %v", problemsOf(v))
			}
			problems.Clear(camera.WarnUnplugged)
			st.until(t, func(v map[string]any) bool { return len(problemsOf(v)) == 0 })

			// A page loaded now shows none, and no state ever carried the
			// operator's detail.
			if raw := readState(t, s); strings.Contains(raw, "VIDIOC") || strings.Contains(raw, "/dev/video0") {
				t.Errorf("the operator's detail reached the page: %s", raw)
			} else if !strings.Contains(raw, `"problems":[]`) {
				t.Errorf("a cleared problem is still on a fresh page: %s", raw)
			}
		})
	}
}

// In Chromium, a problem the tracker sets appears on the page as the
// visitor's words and goes when it is cleared.
func TestBrowserShowsTrackedProblems(t *testing.T) {
	problems := &health.Tracker{}
	s := startKiosk(t, &kiosk.Options{Health: problems})
	b := kiosktest.NewBrowser(t, "")
	b.Do(chromedp.Navigate(s.URL()))
	b.Wait("the page's first state", `document.getElementById('conn').dataset.state === 'connecting' && document.getElementById('problems').hidden`)
	problems.Set(camera.WarnUnplugged, "camera: VIDIOC_DQBUF: no such device")
	b.Wait("the camera problem", `!document.getElementById('problems').hidden`)
	if got := kiosktest.Eval[string](b, `document.getElementById('problems-list').textContent`); got != camera.WarnUnplugged.Person {
		t.Errorf("the page shows %q, want %q", got, camera.WarnUnplugged.Person)
	}
	b.Shot("problem")
	problems.Clear(camera.WarnUnplugged)
	b.Wait("the problem cleared", `document.getElementById('problems').hidden && document.getElementById('problems-list').children.length === 0`)
}
