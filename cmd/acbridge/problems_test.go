package main

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/health"
)

// Every problem the shipped binary can report is registered by the
// package where it arises, with a stable code, the operator's fix and a
// visitor's text in plain words: no command, address or error text, short
// enough for the kiosk page, which translates it keyed by the code.
func TestEveryProblemHasVisitorWords(t *testing.T) {
	all := health.All()
	if len(all) < 30 {
		t.Fatalf("%d problems registered in the binary", len(all))
	}
	areas := []string{"nfc.", "keystore.", "power.", "agent.", "camera.", "audio.", "button.", "gpio.", "evdev."}
	for _, w := range all {
		if !strings.Contains(w.Code, ".") || strings.ToLower(w.Code) != w.Code {
			t.Errorf("%s: a code is area.problem in lower case", w.Code)
		}
		known := false
		for _, a := range areas {
			known = known || strings.HasPrefix(w.Code, a)
		}
		if !known {
			t.Errorf("%s: unknown area", w.Code)
		}
		p := w.Person
		if len(p) > 80 || strings.ContainsAny(p, "`/:=_[]{}") || strings.Contains(p, "http") || !strings.HasSuffix(p, ".") {
			t.Errorf("%s: visitor text %q is not plain words", w.Code, p)
		}
	}
}
