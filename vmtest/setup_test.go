package vmtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// setupAnswers make `acbridge setup` in the guest choose vivid and learn
// PHOTO on the simulated header and CANCEL on the uinput keyboard; the
// agent is the host's, through the guest's loopback relay.
const setupAnswers = `reader = "none"
camera = "/dev/video0"
microphone = "none"
speaker = "none"
gpio_chip = "header"
buttons = ["photo", "cancel"]
agent_url = "http://127.0.0.1:8080"
keystore = "/tmp/setup-keystore.json"
`

// testSetup: `acbridge setup --answers` on the guest's kernel watches every
// line of the gpio-sim chip labelled as a Pi's header and every key of the
// uinput keyboard, learns PHOTO from a line pulled low by a bouncy press
// and CANCEL from a key typed on the uinput device, and the configuration
// it writes passes --check-config. It runs in TestDeviceTier's boot before
// "daemon", whose buttons hold the same lines.
func (r *rig) testSetup(t *testing.T) {
	kbd := r.kbdEvent(t)
	r.run(t, 10*time.Second, "mkdir", "-p", "/tmp/setup")
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, setupAnswers, "sh", "-c", "cat > /tmp/setup/answers.toml"); err != nil {
		t.Fatal(err)
	}
	r.sh(t, 10*time.Second, "(acbridge setup --config /tmp/setup/acbridge.toml --answers /tmp/setup/answers.toml --keypad "+kbd+" --press-wait 60s"+
		" > /tmp/setup.out 2> /tmp/setup.err; echo exit=$? >> /tmp/setup.out) >/dev/null 2>&1 &")
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := r.vm.Run(context.Background(), 10*time.Second, "sh", "-c", "cat /tmp/setup.out; echo ---; cat /tmp/setup.err")
			t.Logf("setup:\n%s", out.Stdout)
		}
	})
	r.waitFile(t, "/tmp/setup.out", "Press the PHOTO button now", 1, 60*time.Second)
	r.press(t, linePhoto)
	r.waitFile(t, "/tmp/setup.out", "PHOTO: GPIO line 27 of header", 1, 30*time.Second)
	r.waitFile(t, "/tmp/setup.out", "Press the CANCEL button now", 1, 60*time.Second)
	// A keyboard-wedge reader types digits and Enter: the first key, 7,
	// is the one learned.
	r.run(t, 10*time.Second, "uinput-type", "7")
	r.waitFile(t, "/tmp/setup.out", "CANCEL: KEY_7 on "+kbd, 1, 30*time.Second)
	r.waitFile(t, "/tmp/setup.out", "exit=0", 1, 120*time.Second)
	cfg := r.run(t, 5*time.Second, "cat", "/tmp/setup/acbridge.toml").Stdout
	for _, want := range []string{"chip = \"header\"\nline = 27\nactive_low = true\nbias = \"pull-up\"",
		"control = \"cancel\"\nsource = \"evdev\"\ndevice = \"" + kbd + "\"\nkey = \"KEY_7\"", `device = "/dev/video0"`} {
		if !strings.Contains(cfg, want) {
			t.Errorf("the configuration lacks %q:\n%s", want, cfg)
		}
	}
	r.run(t, 30*time.Second, "acbridge", "run", "--check-config", "--config", "/tmp/setup/acbridge.toml")
}
