package vmtest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// waitFile waits in the guest until path holds sub at least n times.
func (r *rig) waitFile(t *testing.T, path, sub string, n int, timeout time.Duration) {
	t.Helper()
	script := fmt.Sprintf(`until [ "$(grep -c -F -e %q %s 2>/dev/null)" -ge %d ]; do usleep 50000; done`, sub, path, n)
	rep, err := r.vm.Run(t.Context(), timeout, "sh", "-c", script)
	if err != nil || rep.Code != 0 {
		out, _ := r.vm.Run(t.Context(), 5*time.Second, "cat", path)
		t.Fatalf("waiting for %q in %s: %v %s\n%s:\n%s", sub, path, err, rep.Stderr, path, out.Stdout)
	}
}

// kbdEvent is the uinput reader's event node.
func (r *rig) kbdEvent(t *testing.T) string {
	t.Helper()
	rep := r.sh(t, 10*time.Second, `for d in /sys/class/input/event*; do grep -q 'acbridge-vm RFID Reader' $d/device/name && echo /dev/input/${d##*/}; done`)
	node := strings.TrimSpace(rep.Stdout)
	if !strings.HasPrefix(node, "/dev/input/event") {
		t.Fatalf("no event node for the uinput reader: %q", node)
	}
	return node
}

// kbdScan starts `acbridge scan` on the keyboard reader, types typed once
// it is armed while another reader of the device listens, and returns the
// alias and what that other reader saw.
func (r *rig) kbdScan(t *testing.T, node, before, typed string) (alias string, leaked string) {
	t.Helper()
	if before != "" {
		r.run(t, 10*time.Second, "uinput-type", before)
	}
	r.sh(t, 10*time.Second, "rm -f /tmp/kbd.out /tmp/kbd.err /tmp/kbd.spy; (acbridge scan --once --json --device "+node+" --window 30s --keystore /var/lib/acbridge/keystore.json > /tmp/kbd.out 2> /tmp/kbd.err; echo exit=$? >> /tmp/kbd.err) >/dev/null 2>&1 &")
	r.waitFile(t, "/tmp/kbd.err", "armed:", 1, 30*time.Second)
	// A second reader of the same device: EVIOCGRAB must keep every key
	// from it (and from the console).
	r.sh(t, 10*time.Second, "cat "+node+" > /tmp/kbd.spy 2>/dev/null & echo $! > /tmp/spy.pid")
	r.run(t, 10*time.Second, "uinput-type", typed)
	r.waitFile(t, "/tmp/kbd.err", "exit=", 1, 30*time.Second)
	out := r.run(t, 10*time.Second, "cat", "/tmp/kbd.out").Stdout
	errs := r.run(t, 10*time.Second, "cat", "/tmp/kbd.err").Stdout
	if !strings.Contains(errs, "exit=0") {
		t.Fatalf("keyboard scan failed:\n%s\n%s", out, errs)
	}
	for _, s := range []string{before, typed} {
		if s != "" && strings.Contains(out+errs, s) {
			t.Errorf("the typed UID %s shows in scan's output", s)
		}
	}
	var obs map[string]any
	if err := json.Unmarshal([]byte(lastLine(out)), &obs); err != nil {
		t.Fatalf("scan output %q: %v", out, err)
	}
	r.waitFile(t, "/tmp/kbd.err", "exit=", 1, 5*time.Second)
	r.sh(t, 10*time.Second, "kill $(cat /tmp/spy.pid)")
	spy := r.run(t, 10*time.Second, "wc", "-c", "/tmp/kbd.spy").Stdout
	return findString(obs, "objectRef"), spy
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// testKeyboard: digits typed on a real input device become an alias only
// when typed inside the armed window, and are grabbed.
func (r *rig) testKeyboard(t *testing.T) {
	node := r.kbdEvent(t)
	const uidA, uidB = "0427183950", "0427183951"
	a, spy := r.kbdScan(t, node, "", uidA)
	if !strings.HasPrefix(strings.TrimSpace(spy), "0 ") {
		t.Errorf("another reader of %s saw the typed keys (grab failed): %s bytes", node, spy)
	}
	b, _ := r.kbdScan(t, node, "", uidB)
	// uidB typed before arming must not be taken: the alias is uidA's.
	aAgain, _ := r.kbdScan(t, node, uidB, uidA)
	if a == "" || a == b {
		t.Errorf("aliases of two tags: %q and %q", a, b)
	}
	if aAgain != a {
		t.Errorf("keys typed before the window leaked into it: alias %q, want %q", aAgain, a)
	}
}

// testPN532: the PN532 board emulator on the host side of the guest's
// second 8250 UART.
func (r *rig) testPN532(t *testing.T) {
	scan := func(uid []byte) string {
		r.pn532.SetTag(uid)
		defer r.pn532.SetTag(nil)
		rep := r.run(t, 60*time.Second, "acbridge", "scan", "--once", "--json", "--driver", "pn532", "--device", "/dev/ttyS1", "--window", "45s", "--keystore", "/var/lib/acbridge/keystore.json")
		r.checkNoCanary(t, "pn532 scan output", rep.Stdout+rep.Stderr)
		var obs map[string]any
		if err := json.Unmarshal([]byte(lastLine(rep.Stdout)), &obs); err != nil {
			t.Fatalf("scan output %q: %v (stderr %s)", rep.Stdout, err, rep.Stderr)
		}
		return findString(obs, "objectRef")
	}
	a, b := scan(canary1), scan(canary2)
	if a == "" || a == b {
		t.Errorf("PN532 aliases %q and %q", a, b)
	}
	if r.ccidAlias1 != "" && a != r.ccidAlias1 {
		t.Errorf("the same tag has alias %q through the PN532 and %q through CCID", a, r.ccidAlias1)
	}
	if r.pn532.Polls() == 0 {
		t.Error("the emulated PN532 was never polled")
	}
}
