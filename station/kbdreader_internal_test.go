package station

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKbdReaderNote(t *testing.T) {
	dir := t.TempDir()
	dev := func(event, name, vendor, product string) {
		d := filepath.Join(dir, event, "device")
		if err := os.MkdirAll(filepath.Join(d, "id"), 0o755); err != nil {
			t.Fatal(err)
		}
		for f, v := range map[string]string{"name": name, "id/vendor": vendor, "id/product": product} {
			if err := os.WriteFile(filepath.Join(d, f), []byte(v+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	dev("event0", "AT Translated Set 2 keyboard", "0001", "0001")
	if n := kbdReaderNote(dir, "pcsc"); n != "" {
		t.Errorf("a plain keyboard: %q", n)
	}
	dev("event4", "Sycreader USB Keyboard", "08ff", "0009")
	n := kbdReaderNote(dir, "pcsc")
	if !strings.Contains(n, "event4") || !strings.Contains(n, "08ff:0009") || !strings.Contains(n, `driver = "keyboard"`) {
		t.Errorf("a known reader ID: %q", n)
	}
	if n := kbdReaderNote(dir, "keyboard"); n != "" {
		t.Errorf("configured: %q", n)
	}
	os.RemoveAll(filepath.Join(dir, "event4"))
	dev("event5", "IC Card Reader", "1a2b", "3c4d")
	if n := kbdReaderNote(dir, "pcsc"); !strings.Contains(n, "event5") {
		t.Errorf("a reader by name: %q", n)
	}
}
