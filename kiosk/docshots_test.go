package kiosk_test

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/agentcall/acbridge/kiosk"
)

// TestDocScreenshots keeps docs/kiosk.md's images true: the page links into
// the directory `make screenshots` fills rather than committing images, so
// every link must name a file TestBrowserStates saves (the Browser numbers
// its shots in order: state by state, size by size), and every state must
// be shown at the Pi's screen size in English.
func TestDocScreenshots(t *testing.T) {
	doc, err := os.ReadFile("../docs/kiosk.md")
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`\]\(\.\./bin/screenshots/states/([^/)]+)/(\d\d)-([a-z-]+)-(\d+)x(\d+)\.png\)`)
	shown := map[string]bool{}
	for _, m := range link.FindAllStringSubmatch(string(doc), -1) {
		lang, nn, name := m[1], m[2], m[3]
		if !slices.Contains(kiosk.Languages(), lang) {
			t.Errorf("%s: no language %q", m[0], lang)
		}
		si := slices.IndexFunc(states, func(s pageState) bool { return s.name == name })
		if si < 0 {
			t.Errorf("%s: no state %q in the browser test", m[0], name)
			continue
		}
		w, _ := strconv.ParseInt(m[4], 10, 64)
		h, _ := strconv.ParseInt(m[5], 10, 64)
		zi := slices.Index(sizes, [2]int64{w, h})
		if zi < 0 {
			t.Errorf("%s: the browser test does not use %d×%d", m[0], w, h)
			continue
		}
		if want := fmt.Sprintf("%02d", si*len(sizes)+zi+1); nn != want {
			t.Errorf("%s: the browser test saves this state at this size as %s-%s-%dx%d.png", m[0], want, name, w, h)
		}
		if lang == "en" && zi == 0 {
			shown[name] = true
		}
	}
	for _, s := range states {
		if !shown[s.name] {
			t.Errorf("docs/kiosk.md shows no English 800×480 screenshot of %q", s.name)
		}
	}
}
