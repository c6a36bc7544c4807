package accept

import (
	"context"
	"errors"
	"io/fs"

	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/station"
)

// Fixes of env.rc522, by what went wrong.
const (
	fixSPIOff = "enable SPI: raspi-config → Interface Options → SPI, or dtparam=spi=on in /boot/firmware/config.txt, then reboot; " +
		"nfc.spi_device names the node (ls /dev/spidev*)"
	fixSPIPerm = "the service user needs group spi (usermod -aG spi acbridge; acbridge.sysusers does it) and udev/70-acbridge.rules; " +
		"the systemd unit needs DeviceAllow=char-spi rw"
	fixRC522Wiring = "check the wiring against docs/raspberry-pi.md (RC522 over SPI): 3.3V to pin 1 or 17 (never 5 V), GND, " +
		"SDA to CE0 (pin 24), SCK pin 23, MOSI pin 19, MISO pin 21, RST to the line of nfc.reset_line (GPIO25, pin 22)"
)

// envRC522 opens the RC522 the configuration names and reads its
// VersionReg: 0x91/0x92 genuine, 0x88 the FM17522 clone, 0x00/0xFF
// nothing on MISO. The field stays off; no tag is read.
func (r *runner) envRC522(ctx context.Context, t *T) error {
	if r.cfg.NFC.Driver != "rc522" {
		return skipf("nfc.driver is %q, not rc522", r.cfg.NFC.Driver)
	}
	o := r.o.RC522
	if o == nil {
		o = station.RC522Options(r.cfg.NFC, r.o.Logger)
	}
	c, err := rc522.Open(ctx, o)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return failErr(err, fixSPIOff)
	case errors.Is(err, fs.ErrPermission):
		return failErr(err, fixSPIPerm)
	case errors.Is(err, rc522.ErrWiring):
		return failErr(err, fixRC522Wiring)
	case err != nil:
		return failErr(err, "")
	}
	defer c.Close()
	v := c.Version()
	name, _ := rc522.DescribeVersion(v)
	t.note("VersionReg 0x%02X: %s", v, name)
	if v != 0x91 && v != 0x92 {
		t.note("a clone chip: it reads tags like an NXP one, often at a shorter distance; if taps are missed, hold the tag flat on the antenna or use a board with an NXP MFRC522")
	}
	return nil
}
