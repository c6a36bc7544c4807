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
