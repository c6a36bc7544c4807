package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/keystore"
)

// --device reads a keyboard-style reader, not pcscd: a device that is not
// there is named, with the fix, and pcscd is not consulted.
func TestScanKeyboardDeviceMissing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "keystore.json")
	if _, err := keystore.Create(path); err != nil {
		t.Fatal(err)
	}
	dev := filepath.Join(dir, "usb-Reader-event-kbd")
	code, out, errs := run(t, "scan", "--once", "--keystore", path, "--device", dev)
	if code != 1 || out != "" || !strings.Contains(errs, "nfc/keyboard: open "+dev) || !strings.Contains(errs, "DeviceAllow") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", code, out, errs)
	}
}
