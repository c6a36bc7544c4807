package station

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc/rc522"
)

// rc522Consumer labels the reset line in gpioinfo.
const rc522Consumer = "acbridge-rc522"

// checkRC522 checks the keys of nfc.driver = "rc522": the spidev name,
// the reset line's number, and that the line is neither the LED's nor a
// button's (a line is one program's output or input, not both).
func checkRC522(cfg *config.Config, add func(string, ...any), chips gpio.ChipLister) {
	n := cfg.NFC
	if l := n.ResetLine; l < -1 || l > 1023 {
		add("nfc.reset_line must be the GPIO line wired to the board's RST pin (25 is GPIO25, header pin 22), or -1 when RST is tied to 3.3 V")
	}
	if _, _, err := rc522.ParseDevice(n.SPIDevice); err != nil {
		add("nfc.spi_device %s, not %q", err, clip(n.SPIDevice))
	}
	if n.ResetLine < 0 {
		return
	}
	if why := badName(n.ResetChip, false); why != "" {
		add("nfc.reset_chip %s", why)
	}
	chipName(add, "nfc.reset_chip", n.ResetChip)
	if cfg.LED.Chip != "" && cfg.LED.Line == n.ResetLine && gpio.SameChip(cfg.LED.Chip, n.ResetChip, chips) {
		add("nfc.reset_line %d of %s is the LED's line ([led]): wire the RC522's RST or the LED to another line (docs/raspberry-pi.md)", n.ResetLine, clip(n.ResetChip))
	}
	for i, b := range cfg.Buttons {
		if b.Source == "gpio" && b.Line == n.ResetLine && gpio.SameChip(b.Chip, n.ResetChip, chips) {
			add("nfc.reset_line %d of %s is button[%d]'s line: wire the RC522's RST or the button to another line (docs/raspberry-pi.md)", n.ResetLine, clip(n.ResetChip), i)
		}
	}
}

// RC522Options are the rc522 options of c: the spidev node and, unless
// nfc.reset_line is -1, the reset line, requested at each open so that a
// reopened chip gets a fresh line.
func RC522Options(c config.NFC, log *slog.Logger) *rc522.Options {
	o := &rc522.Options{Device: c.SPIDevice, Logger: log}
	if c.ResetLine >= 0 {
		chip, line := c.ResetChip, c.ResetLine
		o.OpenReset = func() (rc522.ResetLine, error) {
			out, err := gpio.OpenIndicator(&gpio.IndicatorOptions{Chip: chip, Offset: line, Consumer: rc522Consumer, Logger: log})
			if err != nil {
				return nil, fmt.Errorf("nfc.reset_chip %s, nfc.reset_line %d: %w", clip(chip), line, err)
			}
			return resetOutput{out}, nil
		}
	}
	return o
}

// resetOutput drives RST through gpio.Indicator, the GPIO output the LED
// uses: lit is high, and Close leaves the line low, the chip in reset.
type resetOutput struct{ *gpio.Indicator }

func (r resetOutput) SetValue(v int) error {
	if v == 0 {
		return r.Set(button.LightOff)
	}
	return r.Set(button.LightOn)
}

// acceptRC522 opens the RC522 the configuration names and reads its
// VersionReg: 0x91/0x92 genuine, 0x88 the FM17522 clone, 0x00/0xFF
// nothing on MISO. The field stays off; no tag is read.
func acceptRC522(ctx context.Context, e *AcceptEnv) ([]string, error) {
	o := e.RC522
	if o == nil {
		o = RC522Options(e.Config.NFC, e.Logger)
	}
	c, err := rc522.Open(ctx, o)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, rc522.WarnSPIOff.Wrap(err)
	case errors.Is(err, fs.ErrPermission):
		return nil, rc522.WarnPermission.Wrap(err)
	case err != nil:
		return nil, err // ErrWiring carries rc522.WarnWiring
	}
	defer c.Close()
	v := c.Version()
	name, _ := rc522.DescribeVersion(v)
	notes := []string{fmt.Sprintf("VersionReg 0x%02X: %s", v, name)}
	if v != 0x91 && v != 0x92 {
		notes = append(notes, "a clone chip: it reads tags like an NXP one, often at a shorter distance; if taps are missed, hold the tag flat on the antenna or use a board with an NXP MFRC522")
	}
	return notes, nil
}
