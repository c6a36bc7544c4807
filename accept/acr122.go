package accept

import (
	"bytes"
	"os"
	"path/filepath"
)

// acr122Note warns about an ACS ACR122U (USB 072f:2200) under sysfs: most
// units sold are clones that fail under PC/SC, and genuine ones often need
// a power cycle after a reboot. It is a note, not a failure: a unit that
// reads tags in the nfc steps is fine. "" when there is none.
func acr122Note(sysfs string) string {
	devs, _ := filepath.Glob(filepath.Join(sysfs, "bus/usb/devices/*/idVendor"))
	for _, v := range devs {
		dir := filepath.Dir(v)
		if usbID(v) == "072f" && usbID(filepath.Join(dir, "idProduct")) == "2200" {
			return "an ACS ACR122U (072f:2200) is connected: most units sold are clones that fail under PC/SC, " +
				"and genuine ones often need unplugging after a reboot; if taps are missed, use an ACS ACR1252U"
		}
	}
	return ""
}

func usbID(path string) string {
	b, _ := os.ReadFile(path)
	return string(bytes.ToLower(bytes.TrimSpace(b)))
}
