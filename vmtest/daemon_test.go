package vmtest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// GPIO lines of the daemon's controls on the simulated header (BCM
// numbers, as on a Pi).
const (
	lineScan  = 17
	linePhoto = 27
	lineLED   = 22
)

// daemonConfig is the guest's /etc/acbridge/acbridge.toml: the host's
// agent through the guest's loopback relay, the CCID reader, vivid, and
// buttons and the LED on the chip that "header" must resolve to.
var daemonConfig = fmt.Sprintf(`[agent]
url = "http://127.0.0.1:8080"
allow_insecure_local = true

[keystore]
path = "/var/lib/acbridge/keystore.json"
allow_volatile = true

[modalities]
enabled = ["nfc", "photo"]

[nfc]
window = "20s"

[camera]
device = "/dev/video0"

[[button]]
control = "scan"
source = "gpio"
chip = "header"
line = %d
active_low = true
bias = "pull-up"
debounce = "800ms"

[[button]]
control = "photo"
source = "gpio"
chip = "header"
line = %d
active_low = true
bias = "pull-up"
debounce = "800ms"

[led]
chip = "header"
line = %d
`, lineScan, linePhoto, lineLED)

// simLine is a line's sysfs directory on the header chip, which the guest's
// init made after a decoy chip, so that "header" must be resolved by label.
func simLine(n int) string {
	const cfg = "/sys/kernel/config/gpio-sim/header"
	return fmt.Sprintf("/sys/devices/platform/$(cat %s/dev_name)/$(cat %s/gpio-bank0/chip_name)/sim_gpio%d", cfg, cfg, n)
}

// press pulls an active-low button's line down and up again from the
// simulator's side, with contact bounce: five flips 40 ms apart at each
// edge, written by guestd (a shell under TCG is too slow to bounce). The
// bounce is longer than the default 30 ms debounce and shorter than the
// configured 800 ms, so it tests that the configured one is in force. (At
// 400 ms, under TCG on a host kept busy by stress-ng, an edge's flips took
// 342 ms and accept counted two presses.)
func (r *rig) press(t *testing.T, line int) {
	t.Helper()
	debounce := 800 * time.Millisecond
	if r.debounce != 0 {
		debounce = r.debounce
	}
	pull := strings.TrimSpace(r.sh(t, 5*time.Second, "echo "+simLine(line)+"/pull").Stdout)
	rep := r.run(t, 10*time.Second, "bounce", pull, (2 * debounce).String(), "40ms")
	took, err := time.ParseDuration(strings.TrimSpace(rep.Stdout))
	if err != nil {
		t.Fatal(err)
	}
	// The flips must fit inside the debounce to test it. They do unless
	// the guest is busy, as it is when bounces get through as presses
	// that each start a collection.
	if took > debounce-20*time.Millisecond {
		t.Fatalf("an edge's five flips took %v in the guest, about the %v debounce: bounces taken as presses kept the guest busy, or the host is overloaded", took, debounce)
	}
	t.Logf("bounce: each edge's flips within %v", took)
}

func (r *rig) ledValue(t *testing.T) string {
	t.Helper()
	return strings.TrimSpace(r.sh(t, 5*time.Second, "cat "+simLine(lineLED)+"/value").Stdout)
}

// testDaemon: `acbridge run` against the reference agent on the host:
// a bouncy SCAN press arms the reader once and lights the LED, a tap on
// the CCID card sends the alias, a PHOTO press sends a vivid photo.
func (r *rig) testDaemon(t *testing.T) {
	r.run(t, 10*time.Second, "mkdir", "-p", "/etc/acbridge")
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, daemonConfig, "sh", "-c", "cat > /etc/acbridge/acbridge.toml"); err != nil {
		t.Fatal(err)
	}
	chk := r.run(t, 30*time.Second, "acbridge", "run", "--check-config")
	t.Logf("check-config: %s", chk.Stdout)
	r.startDaemon(t, "run", "")
	r.waitFile(t, "/tmp/run.out", "you can use: tag scan, photo]", 1, 60*time.Second)

	if v := r.ledValue(t); v != "0" {
		t.Errorf("LED line is %s before any press, want 0", v)
	}
	r.press(t, lineScan)
	r.waitFile(t, "/tmp/run.out", "[reader armed", 1, 20*time.Second)
	if v := r.ledValue(t); v != "1" {
		t.Errorf("LED line is %s while the reader is armed, want 1", v)
	}
	if err := r.card.Insert(canary1); err != nil {
		t.Fatal(err)
	}
	r.waitFile(t, "/tmp/run.out", "agent: Unknown object; no association stored.", 1, 30*time.Second)
	r.card.Remove()
	out := r.run(t, 5*time.Second, "cat", "/tmp/run.out").Stdout
	if n := strings.Count(out, "[reader armed"); n != 1 {
		t.Errorf("one bouncy press armed the reader %d times, want once", n)
	}

	r.press(t, linePhoto)
	r.waitFile(t, "/tmp/run.out", "[photo sent]", 1, 60*time.Second)
	r.waitFile(t, "/tmp/run.out", "agent: Received the photo; nothing stored.", 1, 30*time.Second)
	if !strings.Contains(r.agent.log.String(), "photo") && testing.Verbose() {
		t.Logf("agent log:\n%s", r.agent.log.String())
	}
	logs := r.run(t, 5*time.Second, "sh", "-c", "cat /tmp/run.out /tmp/run.err").Stdout
	// A bounce that got through the debounce is a second press, which the
	// bridge logs as ignored while the first one's collection runs.
	if n := strings.Count(logs, "press ignored"); n != 0 {
		t.Errorf("two bouncy presses made %d extra presses, want none", n)
	}
	if n := strings.Count(logs, "[photo sent]"); n != 1 {
		t.Errorf("one PHOTO press sent %d photos", n)
	}
	r.checkNoCanary(t, "daemon output", logs)
}

// startDaemon starts `acbridge run ARGS` in the guest, its output in
// /tmp/NAME.out and /tmp/NAME.err, and stops it when t ends, waiting until
// it is gone (its GPIO lines free again); a failed t logs its output.
func (r *rig) startDaemon(t *testing.T, name, args string) {
	t.Helper()
	out, errf := "/tmp/"+name+".out", "/tmp/"+name+".err"
	r.sh(t, 10*time.Second, fmt.Sprintf("(acbridge run %s > %s 2> %s; echo exit=$? >> %s) >/dev/null 2>&1 &", args, out, errf, errf))
	t.Cleanup(func() {
		// t.Context is over by the time cleanups run.
		ctx := context.Background()
		r.vm.Run(ctx, 30*time.Second, "sh", "-c", "kill $(pidof acbridge) 2>/dev/null; while pidof acbridge >/dev/null; do usleep 50000; done")
		if t.Failed() {
			logs, _ := r.vm.Run(ctx, 10*time.Second, "sh", "-c", "cat "+out+"; echo ---; tail -50 "+errf)
			t.Logf("daemon:\n%s", logs.Stdout)
		}
	})
}
