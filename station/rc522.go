package station

import (
	"fmt"
	"log/slog"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc/rc522"
)

// rc522Consumer labels the reset line in gpioinfo.
const rc522Consumer = "acbridge-rc522"

// checkRC522 checks the keys of nfc.driver = "rc522" that need the device
// packages: the spidev name, and that the reset line is neither the LED's
// nor a button's (a line is one program's output or input, not both).
func checkRC522(cfg *config.Config, add func(string, ...any), chips gpio.ChipLister) {
	n := cfg.NFC
	if n.Driver != "rc522" {
		return
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
