package station

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"
)

// maxDeviceName bounds the device names Check accepts: Linux paths and
// input device names (EVIOCGNAME, 256 bytes) are well below it.
const maxDeviceName = 256

// Check validates what config.Validate cannot without knowing the device
// packages: the reader driver and its keys (the driver table's checks),
// evdev key names, gpio biases, the syntax of device names and
// combinations of devices that can never work. It opens nothing; only a
// GPIO chip named by label or "header" makes it read the chips' labels. The
// problems are reported all at once, each naming its key, as
// config.Problems.
func Check(cfg *config.Config) error { return check(cfg, gpio.SystemChips{}) }

// check is Check with the machine's GPIO chips described by chips, which
// it lists only to compare a chip named by label with one named by device.
func check(cfg *config.Config, chips gpio.ChipLister) error {
	var p config.Problems
	add := func(format string, a ...any) { p = append(p, fmt.Sprintf(format, a...)) }
	name := func(key, v string, path bool) {
		if v == "" {
			return
		}
		if why := badName(v, path); why != "" {
			add("%s %s", key, why)
		}
	}
	name("nfc.reader", cfg.NFC.Reader, false)
	if len(cfg.NFC.Reader) > nfc.MaxReaderNameLen {
		add("nfc.reader is longer than %d bytes (pcsc-lite's limit); copy the name `acbridge devices` lists", nfc.MaxReaderNameLen)
	}
	name("nfc.device", cfg.NFC.Device, true)
	name("camera.device", cfg.Camera.Device, false)
	if src := CameraSourceOf(cfg.Camera.Device); src.Check != nil {
		src.Check(cfg.Camera.Device, add)
	}
	name("audio.microphone", cfg.Audio.Microphone, false)
	name("audio.speaker", cfg.Audio.Speaker, false)
	name("led.chip", cfg.LED.Chip, false)
	chipName(add, "led.chip", cfg.LED.Chip)
	for i, b := range cfg.Buttons {
		key := fmt.Sprintf("button[%d]", i)
		if src, ok := lookupButtonSource(b.Source); ok && src.Check != nil {
			src.Check(cfg, i, checker{add: add, name: name, chips: chips})
		}
		if b.Source != "gpio" && b.Bias != "" {
			add("%s.bias applies only to gpio buttons; remove it", key)
		}
	}
	if d, ok := LookupReaderDriver(cfg.NFC.Driver); !ok {
		add("nfc.driver: unknown driver %q (%s)", clip(cfg.NFC.Driver), strings.Join(ReaderDriverNames(), ", "))
	} else if d.Check != nil {
		d.Check(cfg, add, chips)
	}
	if len(p) > 0 {
		return p
	}
	return nil
}

// badName says what is wrong with a device name, or "" when nothing is:
// names come from `acbridge devices` and are printable; a path must be
// absolute (the service's working directory is not the operator's).
func badName(v string, path bool) string {
	if len(v) > maxDeviceName {
		return fmt.Sprintf("is longer than %d bytes", maxDeviceName)
	}
	for _, r := range v {
		if r == unicode.ReplacementChar || !unicode.IsPrint(r) {
			return "contains a control or invalid character; copy the name `acbridge devices` lists"
		}
	}
	if path && !strings.HasPrefix(v, "/") {
		return fmt.Sprintf("must be an absolute device path such as /dev/input/by-id/...-event-kbd, not %q", clip(v))
	}
	return ""
}

// chipName checks a GPIO chip: a name in /dev ("gpiochip0", or a udev
// symbolic link's name) or a path under /dev; go-gpiocdev looks a bare
// name up in /dev, so a relative path names nothing.
func chipName(add func(string, ...any), key, chip string) {
	if chip == "" || strings.HasPrefix(chip, "/dev/") {
		return
	}
	if strings.Contains(chip, "/") {
		add("%s must be a chip name like gpiochip0 or a path under /dev (gpiodetect lists them), not %q", key, clip(chip))
	}
}

func clip(s string) string {
	if r := []rune(s); len(r) > 32 {
		return string(r[:32]) + "…"
	}
	return s
}

// Load reads the configuration at path as config.Load does and checks it
// with Check, so that every command refuses the same configurations.
func Load(path string, override func(*config.Config)) (*config.Config, error) {
	cfg, err := config.Load(path, override)
	if err != nil {
		return nil, err
	}
	if err := Check(cfg); err != nil {
		return nil, fmt.Errorf("config: %s: %w", path, err)
	}
	return cfg, nil
}
