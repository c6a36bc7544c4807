package station_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/station"
)

// The RC522's RST line may be neither the LED's nor a button's, however
// the chip is named; a spidev name that is no spidev node is refused;
// the documented wiring (RST on GPIO25, LED elsewhere) passes.
func TestCheckRC522(t *testing.T) {
	pi5 := piChips{{Name: "gpiochip0", Label: "pinctrl-rp1", Lines: 54}}
	rc := agent + "[nfc]\ndriver = \"rc522\"\n"
	for name, c := range map[string]struct{ text, want string }{
		"led":      {rc + "[led]\nchip = \"gpiochip0\"\nline = 25\n", "nfc.reset_line 25 of header is the LED's line"},
		"button":   {rc + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"pinctrl-rp1\"\nline = 25\n", "is button[0]'s line"},
		"spidev":   {rc + "spi_device = \"/dev/spi0\"\n", "nfc.spi_device must be a spidev node"},
		"chip":     {rc + "reset_chip = \"sys/gpiochip0\"\n", "nfc.reset_chip must be a chip name"},
		"other ce": {rc + "spi_device = \"/dev/spidev0.1\"\nreset_line = 17\n[led]\nchip = \"header\"\nline = 17\n", "the LED's line"},
	} {
		err := station.CheckWith(parse(t, c.text), pi5)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
	for _, good := range []string{
		rc + "[led]\nchip = \"header\"\nline = 17\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"header\"\nline = 27\n",
		rc + "reset_line = -1\n[led]\nchip = \"header\"\nline = 25\n",
		agent + "[led]\nchip = \"header\"\nline = 25\n", // pcsc: the reset keys are not used
	} {
		if err := station.CheckWith(parse(t, good), pi5); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
}

// RC522Options opens the configured spidev node and requests the reset
// line at each open; -1 requests none. This machine has neither, so the
// errors show what the operator reads.
func TestRC522Options(t *testing.T) {
	if _, err := os.Stat("/dev/spidev0.0"); err == nil {
		t.Skip("this machine has SPI")
	}
	cfg := parse(t, agent+"[nfc]\ndriver = \"rc522\"\nreset_chip = \"gpiochip250\"\n")
	o := station.RC522Options(cfg.NFC, nil)
	if o.Device != "/dev/spidev0.0" || o.OpenReset == nil {
		t.Fatalf("options %+v", o)
	}
	if _, err := o.OpenReset(); err == nil || !strings.Contains(err.Error(), "nfc.reset_chip gpiochip250, nfc.reset_line 25") {
		t.Errorf("reset line on a missing chip: %v", err)
	}
	_, err := rc522.Open(context.Background(), o)
	if !errors.Is(err, poll.ErrChip) || !strings.Contains(err.Error(), "enable SPI") {
		t.Errorf("Open: %v", err)
	}
	cfg.NFC.ResetLine = -1
	if o := station.RC522Options(cfg.NFC, nil); o.OpenReset != nil {
		t.Error("reset_line -1 requests a line")
	}
}
