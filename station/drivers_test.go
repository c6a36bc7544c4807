package station_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

// nfc.driver is checked against the driver table, each driver's own keys
// by its row: a device where the driver cannot guess one, the reset line
// of an RC522.
func TestCheckReaderDrivers(t *testing.T) {
	const nfc = agent + "[nfc]\n"
	for text, want := range map[string]string{
		`driver = "rc999"`:                      "nfc.driver: unknown driver \"rc999\" (pcsc, keyboard, pn532, rc522)",
		`driver = "keyboard"`:                   "nfc.device: the keyboard driver needs",
		`driver = "pn532"`:                      "nfc.device: the pn532 driver needs the serial port",
		"driver = \"rc522\"\nreset_line = -2\n": "nfc.reset_line must be",
	} {
		if err := station.Check(parse(t, nfc+text+"\n")); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error containing %q", text, err, want)
		}
	}
	for _, text := range []string{
		"driver = \"keyboard\"\ndevice = \"/dev/input/by-id/usb-Reader-event-kbd\"\n",
		"driver = \"pn532\"\ndevice = \"/dev/serial0\"\n",
		"driver = \"rc522\"\nreset_line = -1\nspi_device = \"/dev/spidev1.0\"\n",
		"",
	} {
		if err := station.Check(parse(t, nfc+text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// config knows no driver but sets the defaults of the keys the drivers
// read: pcsc, and an RC522 on SPI0 CE0 with RST on GPIO25 of the header.
func TestReaderDriverDefaults(t *testing.T) {
	c := config.Defaults()
	if c.NFC.Driver != station.PCSC || c.NFC.Buzzer {
		t.Errorf("defaults: driver %q buzzer %v, want pcsc and off", c.NFC.Driver, c.NFC.Buzzer)
	}
	c = parse(t, agent+"[nfc]\ndriver = \"rc522\"\n")
	if c.NFC.SPIDevice != "/dev/spidev0.0" || c.NFC.ResetChip != "header" || c.NFC.ResetLine != 25 {
		t.Errorf("rc522 defaults: %+v", c.NFC)
	}
	if _, ok := station.LookupReaderDriver(c.NFC.Driver); !ok {
		t.Error("rc522 has no row")
	}
}

// The scan flags fill the key the driver reads its device from.
func TestNFCFromFlags(t *testing.T) {
	n, err := station.NFCFromFlags("rc522", "/dev/spidev0.1", "")
	if err != nil || n.SPIDevice != "/dev/spidev0.1" || n.Device != "" {
		t.Errorf("rc522: %+v, %v", n, err)
	}
	if n, err := station.NFCFromFlags("", "/dev/input/event3", ""); err != nil || n.Driver != "keyboard" || n.Device != "/dev/input/event3" {
		t.Errorf("keyboard: %+v, %v", n, err)
	}
	for _, f := range [][3]string{{"pcsc", "/dev/x", ""}, {"pn532", "", ""}, {"nope", "", ""}} {
		if _, err := station.NFCFromFlags(f[0], f[1], f[2]); err == nil {
			t.Errorf("%q: no error", f)
		}
	}
}
