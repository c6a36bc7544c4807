package config

import (
	"strings"
	"testing"
)

func TestNFCDriverValidated(t *testing.T) {
	const agent = "[agent]\nurl = \"https://a.example\"\n[nfc]\n"
	for text, want := range map[string]string{
		`driver = "rc522"`:    "nfc.driver: unknown driver",
		`driver = "keyboard"`: "nfc.device: the keyboard driver needs",
	} {
		if _, err := Parse([]byte(agent + text + "\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", text, err, want)
		}
	}
	c, err := Parse([]byte(agent + "driver = \"keyboard\"\ndevice = \"/dev/input/by-id/usb-Reader-event-kbd\"\n"))
	if err != nil || c.NFC.Driver != "keyboard" {
		t.Fatalf("keyboard with a device: %+v, %v", c, err)
	}
	if c := Defaults(); c.NFC.Driver != "pcsc" || c.NFC.Buzzer {
		t.Errorf("defaults: driver %q buzzer %v, want pcsc and off", c.NFC.Driver, c.NFC.Buzzer)
	}
}
