package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
)

// doctor on a fresh install of a tags-and-photos kiosk: the keystore the
// daemon creates on first start and the sound devices nothing opens are
// notes, not failures; a missing agent.token_file and a camera.device that
// is not there are failures naming the key.
func TestDoctorNotesAndToken(t *testing.T) {
	dir := t.TempDir()
	ks := filepath.Join(dir, "state", "keystore.json")
	tok := filepath.Join(dir, "token")
	path := filepath.Join(dir, "acbridge.toml")
	text := "[agent]\nurl = \"https://agent.example\"\ntoken_file = \"" + tok + "\"\n" +
		"[modalities]\nenabled = [\"nfc\", \"photo\"]\n[keystore]\npath = \"" + ks + "\"\nallow_volatile = true\n" +
		"[audio]\nmicrophone = \"hw:CARD=Nowhere\"\nspeaker = \"hw:CARD=Nowhere\"\n[camera]\ndevice = \"/dev/video-acbridge-none\"\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	step := func(rep *accept.Report, id string) *accept.StepResult {
		s := rep.Step(id)
		if s == nil {
			t.Fatalf("no step %s", id)
		}
		return s
	}
	doctor := func() *accept.Report {
		_, out, errs := run(t, "doctor", "--config", path, "--json")
		var rep accept.Report
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("doctor --json: %v\n%s\n%s", err, out, errs)
		}
		return &rep
	}
	rep := doctor()
	if s := step(rep, "env.token"); s.Result != accept.Fail || !strings.Contains(s.Reason, "agent.token_file "+tok+" does not exist") {
		t.Errorf("env.token: %+v", s)
	}
	if s := step(rep, "env.devices"); s.Result != accept.Fail || !strings.Contains(s.Reason, "camera.device /dev/video-acbridge-none does not exist; cameras here: ") {
		t.Errorf("env.devices: %+v", s)
	}
	if s := step(rep, "env.keystore"); s.Result != accept.Pass || !strings.Contains(strings.Join(s.Notes, "\n"), "will be created on first start") {
		t.Errorf("env.keystore: %+v", s)
	}
	if s := step(rep, "env.audio"); s.Result == accept.Fail {
		t.Errorf("env.audio fails a kiosk that never opens a sound device: %+v", s)
	}
	if err := os.WriteFile(tok, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := step(doctor(), "env.token"); s.Result != accept.Pass {
		t.Errorf("env.token with a good token: %+v", s)
	}
}
