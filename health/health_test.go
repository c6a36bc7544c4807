package health_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/health"
)

var (
	errOld  = errors.New("test: an old sentinel")
	warnNew = health.Register(&health.Warnable{Code: "test.made", Text: "the daemon is not running",
		Fix: "start it with `systemctl start x`", Person: "This does not work. Please tell the staff."})
	warnOld = health.Register(&health.Warnable{Code: "test.bound", Text: "old", Fix: "replug it",
		Person: "Replug it.", Sentinels: []error{errOld}})
)

// A wrapped problem is found again with its fix, and the error says the
// package, the problem and the fix once; a sentinel bound to a Warnable
// finds it too.
func TestOfAndText(t *testing.T) {
	err := fmt.Errorf("reader %q: %w", "x", warnNew.Err("pkg"))
	if w := health.Of(err); w != warnNew {
		t.Fatalf("Of = %v", w)
	}
	if got := health.FixOf(err); got != warnNew.Fix {
		t.Errorf("FixOf = %q", got)
	}
	if msg := err.Error(); !strings.HasSuffix(msg, "pkg: the daemon is not running: "+warnNew.Fix) || strings.Count(msg, "systemctl") != 1 {
		t.Errorf("message %q", msg)
	}
	if w := health.Of(fmt.Errorf("opening: %w", errOld)); w != warnOld {
		t.Errorf("Of(sentinel) = %v", w)
	}
	if health.Of(errors.New("other")) != nil || health.FixOf(nil) != "" {
		t.Error("an error without a problem has one")
	}
}

// Every registered problem has its words, a unique code and a visitor's
// text for the kiosk page, registered by the package where it arises.
func TestRegistry(t *testing.T) {
	for _, w := range health.All() {
		if health.Lookup(w.Code) != w || w.Person == "" || strings.Contains(w.Person, "`") {
			t.Errorf("%s: lookup %v, person %q", w.Code, health.Lookup(w.Code), w.Person)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a code registered twice did not panic")
		}
	}()
	health.Register(&health.Warnable{Code: warnNew.Code, Text: "x", Fix: "y", Person: "z"})
}

// The tracker holds the current problems and tells watchers of changes
// only, not of a detail that changed.
func TestTracker(t *testing.T) {
	var tr health.Tracker
	var seen []string
	tr.Watch(func(w *health.Warnable, on bool) { seen = append(seen, fmt.Sprint(w.Code, " ", on)) })
	tr.Set(warnOld, "first")
	tr.Set(warnOld, "second")
	if w := tr.SetErr(fmt.Errorf("x: %w", warnNew.Err("pkg"))); w != warnNew {
		t.Errorf("SetErr = %v", w)
	}
	if cur := tr.Current(); len(cur) != 2 || cur[0] != warnOld || cur[1] != warnNew {
		t.Errorf("current %v", cur)
	}
	if d, ok := tr.Detail(warnOld); !ok || d != "second" {
		t.Errorf("detail %q %v", d, ok)
	}
	tr.Clear(warnOld)
	tr.Clear(warnOld)
	if got := strings.Join(seen, " "); got != "test.bound true test.made true test.bound false" {
		t.Errorf("watchers saw %q", got)
	}
	var none *health.Tracker
	none.Set(warnOld, "")
	if none.Current() != nil || tr.SetErr(errors.New("plain")) != nil {
		t.Error("a nil tracker or a plain error tracked something")
	}
}
