package config

import (
	"strings"
	"testing"
)

// The pn532 driver is accepted with a serial port and refused without one,
// with where to find the port.
func TestNFCDriverPN532(t *testing.T) {
	const agent = "[agent]\nurl = \"https://a.example\"\n[nfc]\ndriver = \"pn532\"\n"
	if _, err := Parse([]byte(agent)); err == nil || !strings.Contains(err.Error(), "nfc.device: the pn532 driver needs the serial port") {
		t.Fatalf("no device: %v", err)
	}
	c, err := Parse([]byte(agent + "device = \"/dev/serial0\"\n"))
	if err != nil || c.NFC.Driver != "pn532" || c.NFC.Device != "/dev/serial0" {
		t.Fatalf("with a device: %+v, %v", c.NFC, err)
	}
}
