package main

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

func TestAcceptUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--simulate"},
		{"--report", "same", "--junit", "same"},
		{"--only", "nfc,nosuchstep", "--config", "/nonexistent.toml"},
	} {
		code, _, errs := run(t, append([]string{"accept"}, args...)...)
		if code != 2 || !strings.Contains(errs, "Run 'acbridge accept --help'") {
			t.Errorf("accept %v: exit %d, %q", args, code, errs)
		}
	}
}

// The simulated kiosk is not in the shipped binary; its old spellings say
// in one line where it went.
func TestSimulationMoved(t *testing.T) {
	for _, args := range [][]string{{"demo"}, {"demo", "--interactive"}, {"accept", "--simulate"}, {"doctor", "--simulate"}} {
		code, out, errs := run(t, args...)
		if code != 2 || out != "" || strings.Count(errs, "\n") > 2 || !strings.Contains(errs, "acbridge-demo") || !strings.Contains(errs, "make demo") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// Each finding comes with its fix; --json gives the same as a report.
func TestDoctorFindsTheKeystoreMode(t *testing.T) {
	vpcdtest.Require(t)
	sim, o := doctorSim(t)
	if err := os.Chmod(sim.KeystorePath(), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "doctor", "--config", o.ConfigPath)
	if code != 1 || !strings.Contains(out, "env.keystore: ") || !strings.Contains(out, "fix: chmod 600 "+sim.KeystorePath()) {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
	// The text names its step count ("[1/12] env.config"); --json has them all.
	steps := regexp.MustCompile(`\[1/(\d+)\] `).FindStringSubmatch(out)
	code, out, _ = run(t, "doctor", "--config", o.ConfigPath, "--json")
	var rep accept.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("--json: exit %d, %v\n%s", code, err, out)
	}
	ks := rep.Step("env.keystore")
	if ks == nil || ks.Result != accept.Fail || !strings.HasPrefix(ks.Fix, "chmod 600 ") || steps == nil || fmt.Sprint(len(rep.Steps)) != steps[1] {
		t.Errorf("--json: %+v", rep)
	}
}
