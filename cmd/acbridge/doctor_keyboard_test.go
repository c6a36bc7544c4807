package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
)

// `acbridge doctor` on a kiosk whose reader types its tags: the pcscd
// steps say "not used" rather than failing for a pcscd the kiosk does not
// need.
func TestDoctorKeyboardReaderSkipsPCSCD(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "acbridge.toml")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`
[agent]
url = "https://agent.example"
[keystore]
path = %q
[nfc]
driver = "keyboard"
device = %q
`, filepath.Join(dir, "keystore.json"), filepath.Join(dir, "usb-Reader-event-kbd"))), 0o600); err != nil {
		t.Fatal(err)
	}
	_, out, errs := run(t, "doctor", "--config", cfg, "--json")
	var rep accept.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("doctor --json: %v\nstdout %s\nstderr %s", err, out, errs)
	}
	for _, id := range []string{"env.pcscd", "env.polkit", "env.pn533"} {
		s := rep.Step(id)
		if s == nil || s.Result != accept.Skip || !strings.Contains(s.Reason, `not used: nfc.driver = "keyboard"`) {
			t.Errorf("%s: %+v; want skipped as not used", id, s)
		}
	}
	if s := rep.Step("env.config"); s == nil || s.Result != accept.Pass {
		t.Errorf("env.config: %+v", s)
	}
}
