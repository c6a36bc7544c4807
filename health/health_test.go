package health_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/health"
)

// A wrapped problem is found again with its fix, and the error says the
// package, the problem and the fix once.
func TestOfAndText(t *testing.T) {
	err := fmt.Errorf("reader %q: %w", "x", health.PCSCD.Err("nfc"))
	if w := health.Of(err); w != health.PCSCD {
		t.Fatalf("Of = %v", w)
	}
	if got := health.FixOf(err); got != health.PCSCD.Fix || !strings.Contains(got, "systemctl enable --now pcscd.socket") {
		t.Errorf("FixOf = %q", got)
	}
	if msg := err.Error(); !strings.HasSuffix(msg, "nfc: pcscd is not running: "+health.PCSCD.Fix) || strings.Count(msg, "pcscd.socket") != 1 {
		t.Errorf("message %q", msg)
	}
	if health.Of(errors.New("other")) != nil || health.FixOf(nil) != "" {
		t.Error("an error without a problem has one")
	}
}

// Every registered problem has its words, a unique code and a person's
// text for the kiosk page.
func TestRegistry(t *testing.T) {
	all := health.All()
	if len(all) < 6 {
		t.Fatalf("%d problems registered", len(all))
	}
	for _, w := range all {
		if health.Lookup(w.Code) != w || w.Person == "" || strings.Contains(w.Person, "`") {
			t.Errorf("%s: lookup %v, person %q", w.Code, health.Lookup(w.Code), w.Person)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("a code registered twice did not panic")
		}
	}()
	health.Register(&health.Warnable{Code: health.PCSCD.Code, Text: "x", Fix: "y"})
}
