package accept

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestACR122Note(t *testing.T) {
	sysfs := t.TempDir()
	usb := func(dev, vendor, product string) {
		dir := filepath.Join(sysfs, "bus/usb/devices", dev)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, v := range map[string]string{"idVendor": vendor + "\n", "idProduct": product + "\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := acr122Note(sysfs); n != "" {
		t.Errorf("empty sysfs: note %q", n)
	}
	usb("1-1", "072f", "223b") // ACR1252U: fine
	usb("1-2", "072f", "2201")
	if n := acr122Note(sysfs); n != "" {
		t.Errorf("ACR1252U only: note %q", n)
	}
	usb("1-3", "072F", "2200")
	if n := acr122Note(sysfs); !strings.Contains(n, "072f:2200") || !strings.Contains(n, "ACR1252U") {
		t.Errorf("ACR122U: note %q", n)
	}
}
