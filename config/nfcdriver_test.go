package config

import (
	"strings"
	"testing"
)

func TestNFCDriverValidated(t *testing.T) {
	const agent = "[agent]\nurl = \"https://a.example\"\n[nfc]\n"
	for text, want := range map[string]string{
		`driver = "rc999"`:    "nfc.driver: unknown driver",
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

// rc522 defaults to SPI0 CE0 with RST on GPIO25 of the header; -1 means
// no reset line; other negative lines are refused.
func TestNFCDriverRC522(t *testing.T) {
	const agent = "[agent]\nurl = \"https://a.example\"\n[nfc]\ndriver = \"rc522\"\n"
	c, err := Parse([]byte(agent))
	if err != nil || c.NFC.SPIDevice != "/dev/spidev0.0" || c.NFC.ResetChip != "header" || c.NFC.ResetLine != 25 {
		t.Fatalf("defaults: %+v, %v", c.NFC, err)
	}
	c, err = Parse([]byte(agent + "reset_line = -1\nspi_device = \"/dev/spidev1.0\"\n"))
	if err != nil || c.NFC.ResetLine != -1 || c.NFC.SPIDevice != "/dev/spidev1.0" {
		t.Fatalf("reset_line -1: %+v, %v", c.NFC, err)
	}
	if _, err := Parse([]byte(agent + "reset_line = -2\n")); err == nil || !strings.Contains(err.Error(), "nfc.reset_line must be") {
		t.Errorf("reset_line -2: %v", err)
	}
}
