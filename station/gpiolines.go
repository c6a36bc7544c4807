package station

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
)

// gpioUse is one GPIO line the configuration asks for, with its keys.
type gpioUse struct {
	chipKey, lineKey, chip string
	line                   int
}

func gpioUses(cfg *config.Config) []gpioUse {
	var uses []gpioUse
	for i, b := range cfg.Buttons {
		if b.Source == "gpio" {
			uses = append(uses, gpioUse{fmt.Sprintf("button[%d].chip", i), fmt.Sprintf("button[%d].line", i), b.Chip, b.Line})
		}
	}
	if cfg.LED.Chip != "" {
		uses = append(uses, gpioUse{"led.chip", "led.line", cfg.LED.Chip, cfg.LED.Line})
	}
	if n := cfg.NFC; n.Driver == rc522Driver && n.ResetLine >= 0 {
		uses = append(uses, gpioUse{"nfc.reset_chip", "nfc.reset_line", n.ResetChip, n.ResetLine})
	}
	return uses
}

// GPIOLineProblems names, with their keys, the configured GPIO chips this
// machine does not have and the lines beyond their chip's last line (line
// 99 on the header's 54): doctor and start-up say so before anything is
// opened, instead of an open failing on a line offset. It opens the chips
// only through l, for their labels and line counts.
func GPIOLineProblems(cfg *config.Config, l gpio.ChipLister) error {
	uses := gpioUses(cfg)
	if len(uses) == 0 {
		return nil
	}
	chips, err := l.Chips()
	if err != nil {
		return fmt.Errorf("listing the GPIO chips: %w", err)
	}
	var p config.Problems
	for _, u := range uses {
		c, why := findChip(u.chip, chips, l)
		switch {
		case why != "":
			p = append(p, fmt.Sprintf("%s %q: %s", u.chipKey, clip(u.chip), why))
		case c.Lines > 0 && u.line >= c.Lines:
			p = append(p, fmt.Sprintf("%s %d: %s [%s] has lines 0 to %d; gpioinfo %s lists them", u.lineKey, u.line, c.Name, c.Label, c.Lines-1, c.Name))
		}
	}
	if len(p) == 0 {
		return nil
	}
	return p
}

// findChip finds the configured chip among chips: by device name, path or
// udev link, by label, or "header" by the Pi's labels. why says what is
// wrong when it is not there.
func findChip(chip string, chips []gpio.ChipInfo, l gpio.ChipLister) (gpio.ChipInfo, string) {
	name := chip
	if strings.Contains(chip, "/") {
		p, err := filepath.EvalSymlinks(chip)
		if err != nil {
			return gpio.ChipInfo{}, "does not exist; GPIO chips here: " + gpio.DescribeChips(l)
		}
		name = filepath.Base(p)
	}
	if chip == gpio.Header {
		n, err := gpio.ResolveChip(chip, l)
		if err != nil {
			return gpio.ChipInfo{}, strings.TrimPrefix(err.Error(), `button/gpio: chip "header": `)
		}
		name = n
	}
	for _, c := range chips {
		if c.Name == name || c.Label == chip {
			return c, ""
		}
	}
	return gpio.ChipInfo{}, "no GPIO chip has this name or label; GPIO chips here: " + gpio.DescribeChips(l) + " (gpiodetect lists them)"
}
