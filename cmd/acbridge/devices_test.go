package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// `acbridge devices` as a process: all four classes in text and in JSON,
// the test devices among them, and nothing from the sound libraries on
// standard error (alsa-lib prints about thirty lines per listing on a
// machine without a sound card unless it is kept quiet).
func TestDevicesListsEveryClass(t *testing.T) {
	vpcdtest.Require(t)
	devices := func(args ...string) (string, string) {
		t.Helper()
		cmd := exec.Command(os.Args[0], append([]string{"devices"}, args...)...)
		cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("devices %v: %v\n%s%s", args, err, out.String(), errb.String())
		}
		if errb.Len() != 0 {
			t.Errorf("devices %v wrote to stderr:\n%s", args, errb.String())
		}
		return out.String(), errb.String()
	}

	out, _ := devices()
	for _, want := range []string{
		"NFC readers (PC/SC):\n  " + vpcdtest.Reader,
		"Cameras (camera.device):\n", "  " + camera.TestDevice + "  description=test pattern  test=true  (simulated, not hardware)\n",
		"Microphones (audio.microphone):\n", "  AudioTest  default=false  description=test tone  test=true  (simulated, not hardware)\n",
		"Speakers (audio.speaker):\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("devices lacks %q:\n%s", want, out)
		}
	}

	out, _ = devices("--json")
	var got map[string]struct {
		Devices []map[string]any `json:"devices"`
		Error   string           `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("devices --json: %v\n%s", err, out)
	}
	for _, class := range []string{"nfc", "cameras", "microphones", "speakers"} {
		r, ok := got[class]
		if !ok || r.Devices == nil || r.Error != "" {
			t.Errorf("devices --json: class %q missing or failed: %+v", class, r)
		}
	}
	has := func(class, name string) bool {
		for _, d := range got[class].Devices {
			if d["name"] == name && d["test"] == true && d["simulated"] == true {
				return true
			}
		}
		return false
	}
	if !has("cameras", camera.TestDevice) || !has("microphones", "AudioTest") {
		t.Errorf("devices --json lacks the test camera or microphone:\n%s", out)
	}
}
