package station

import (
	"os"
	"path/filepath"
	"strings"
)

// kbdReaderIDs are USB IDs of common keyboard-style RFID readers
// (vendor:product as in /sys/class/input/…/id, lower-case hex).
var kbdReaderIDs = map[string]bool{
	"08ff:0009": true, // the widespread 125 kHz "Sycreader" USB keyboard reader
}

// kbdReaderNote names an input device that looks like a reader that types
// tag UIDs (its name says RFID or Reader, or its USB ID is a known one)
// while nfc.driver is not "keyboard": such a reader types every tapped UID
// into the console or the kiosk page. A name and an ID are all it checks:
// a keyboard that only has digit keys cannot be told apart from sysfs
// without opening it. "" when there is none.
func kbdReaderNote(sysClassInput, driver string) string {
	if driver == keyboardDriver {
		return ""
	}
	events, _ := filepath.Glob(filepath.Join(sysClassInput, "event*"))
	for _, ev := range events {
		dev := filepath.Join(ev, "device")
		name := strings.TrimSpace(readSmall(filepath.Join(dev, "name")))
		id := strings.ToLower(strings.TrimSpace(readSmall(filepath.Join(dev, "id/vendor"))) + ":" + strings.TrimSpace(readSmall(filepath.Join(dev, "id/product"))))
		if r := []rune(name); len(r) > 64 {
			name = string(r[:64]) + "…"
		}
		lower := strings.ToLower(name)
		if kbdReaderIDs[id] || strings.Contains(lower, "rfid") || strings.Contains(lower, "reader") {
			return "input device " + filepath.Base(ev) + " (" + name + ", " + id + ") looks like an RFID reader that types tag UIDs " +
				"into the focused window; configure it ([nfc] driver = \"keyboard\", device = its /dev/input/by-id link) so that acbridge grabs it, or unplug it"
		}
	}
	return ""
}

func readSmall(path string) string {
	b, err := os.ReadFile(path)
	if err != nil || len(b) > 256 {
		return ""
	}
	return string(b)
}
