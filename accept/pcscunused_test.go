package accept_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
)

var pcscdSteps = []string{"env.pcscd", "env.polkit", "env.pn533"}

// A kiosk whose reader types its tags (nfc.driver = "keyboard") has no use
// for pcscd: its steps say "not used" and cannot fail the acceptance,
// whether pcscd runs on this machine or not. With the PC/SC driver they
// run.
func TestPCSCDStepsNotUsedWithoutPCSC(t *testing.T) {
	for _, driver := range []string{"keyboard", "pcsc"} {
		cfg := config.Defaults()
		cfg.Agent.URL = "https://agent.example"
		cfg.NFC.Driver = driver
		if driver == "keyboard" {
			cfg.NFC.Device = "/dev/input/by-id/usb-Reader-event-kbd"
		}
		rep, err := accept.Run(context.Background(), &accept.Options{Config: cfg, Only: pcscdSteps, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Steps) != len(pcscdSteps) {
			t.Fatalf("%s: ran %d steps, want %d", driver, len(rep.Steps), len(pcscdSteps))
		}
		for _, s := range rep.Steps {
			unused := s.Result == accept.Skip && strings.Contains(s.Reason, "not used") && strings.Contains(s.Reason, `"keyboard"`)
			switch {
			case driver == "keyboard" && !unused:
				t.Errorf("%s with the keyboard driver: %s %q, want skipped as not used", s.ID, s.Result, s.Reason)
			case driver == "pcsc" && strings.Contains(s.Reason, "not used"):
				t.Errorf("%s with the PC/SC driver was not run: %q", s.ID, s.Reason)
			}
		}
		if driver == "keyboard" && !rep.Accepted {
			t.Errorf("the keyboard kiosk's pcscd steps failed the acceptance")
		}
	}
}
