package station

import (
	"os"
	"path/filepath"
	"testing"
)

// The kernel's serial console on the PN532's port is found by the port's
// name, its link's target and with a baud rate suffix.
func TestConsoleOn(t *testing.T) {
	dir := t.TempDir()
	dev := filepath.Join(dir, "ttyAMA0")
	if err := os.WriteFile(dev, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "serial0")
	if err := os.Symlink("ttyAMA0", link); err != nil {
		t.Fatal(err)
	}
	cmdline := filepath.Join(dir, "cmdline")
	for line, want := range map[string]string{
		"console=tty1 root=PARTUUID=1 rootwait":                    "",
		"console=ttyAMA0,115200 console=tty1 root=PARTUUID=1":      "ttyAMA0",
		"coherent_pool=1M console=ttyS0,115200 console=tty1 ro":    "",
		"8250.nr_uarts=1 console=ttyAMA0 console=tty1 fsck.repair": "ttyAMA0",
	} {
		if err := os.WriteFile(cmdline, []byte(line+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{dev, link} {
			if got := consoleOn(d, cmdline); got != want {
				t.Errorf("%q on %s: %q, want %q", line, d, got, want)
			}
		}
	}
}
