package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
)

// TestReportIntoDirectory: --report naming a directory writes the report
// under the kiosk's name there, so many kiosks' reports can be collected in
// one place.
func TestReportIntoDirectory(t *testing.T) {
	dir := t.TempDir()
	rep := &accept.Report{Format: accept.ReportFormat, Device: accept.Identity{Hostname: "lobby-7", KeystoreFingerprint: "k1:00ff"},
		StartedAt: time.Date(2026, 12, 1, 3, 0, 0, 0, time.UTC), Accepted: true, Steps: []accept.StepResult{{ID: "env.config", Result: accept.Pass}}}
	var out, errOut bytes.Buffer
	if code := finishReport(&env{Stdout: &out, Stderr: &errOut}, rep, dir, dir); code != 0 {
		t.Fatalf("finishReport = %d: %s", code, errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "lobby-7-20261201T030000Z.json"))
	if err != nil {
		t.Fatalf("no report under the kiosk's name: %v (printed %q)", err, out.String())
	}
	var got accept.Report
	if err := json.Unmarshal(b, &got); err != nil || got.Device.Hostname != "lobby-7" {
		t.Errorf("report = %+v, %v", got.Device, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "lobby-7-20261201T030000Z.xml")); err != nil {
		t.Errorf("no JUnit report under the kiosk's name: %v", err)
	}
	if !strings.Contains(out.String(), "report: "+filepath.Join(dir, "lobby-7-20261201T030000Z.json")) {
		t.Errorf("output %q does not name the file", out.String())
	}
}
