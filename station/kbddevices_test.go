package station

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestKeyboardLinks(t *testing.T) {
	dir := t.TempDir()
	byID := filepath.Join(dir, "by-id")
	if err := os.Mkdir(byID, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"usb-Sycreader_RFID-event-kbd":   "event4",
		"usb-Logitech_Mouse-event-mouse": "event5",
	} {
		if err := os.WriteFile(filepath.Join(dir, target), nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join("..", target), filepath.Join(byID, name)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := keyboardLinks(context.Background(), byID)
	if err != nil || len(got) != 1 || got[0].Name != filepath.Join(byID, "usb-Sycreader_RFID-event-kbd") || got[0].Attrs["input"] != "event4" {
		t.Fatalf("keyboardLinks = %+v, %v", got, err)
	}
	if got, err := keyboardLinks(context.Background(), filepath.Join(dir, "none")); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no by-id directory: %+v, %v; want an empty list", got, err)
	}
}

func TestKeyboardNodes(t *testing.T) {
	dir := t.TempDir()
	for ev, dev := range map[string][2]string{
		// 64-bit words, a full keyboard: the lowest word has 1..0 and Enter.
		"event2": {"acbridge-vm RFID Reader", "10000000 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 10000ffe"},
		"event3": {"Power Button", "10000000000000 0"}, // KEY_POWER only
		"event4": {"Sycreader RFID", "10000ffc"},       // linked by id already
		"mouse0": {"ignored", "ffffffff"},
	} {
		d := filepath.Join(dir, ev, "device", "capabilities")
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "key"), []byte(dev[1]+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, ev, "device", "name"), []byte(dev[0]+"\n"), 0o644)
	}
	got, err := keyboardNodes(context.Background(), dir, map[string]bool{"event4": true})
	if err != nil || len(got) != 1 || got[0].Name != "/dev/input/event2" || got[0].Attrs["description"] != "acbridge-vm RFID Reader" {
		t.Fatalf("keyboardNodes = %+v, %v", got, err)
	}
	if got, err := keyboardNodes(context.Background(), filepath.Join(dir, "none"), nil); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no input class: %+v, %v; want an empty list", got, err)
	}
}
