package station

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
)

// ButtonSource is one row of the button source table: a value of
// [[button]].source with the checks of the keys only it reads and its
// acceptance steps. (Opening stays in openSources, which gives every GPIO
// line one debouncer and every evdev device one source.)
type ButtonSource struct {
	Name string
	// Check adds the problems of cfg.Buttons[i]'s keys; nil: none.
	Check func(cfg *config.Config, i int, c checker)
	// Accept are the source's acceptance steps, run whatever is
	// configured (they skip when nothing of theirs is).
	Accept []AcceptStep
}

// checker is what a Check adds problems with.
type checker struct {
	add   func(string, ...any)
	name  func(key, v string, path bool) // a device name's syntax
	chips gpio.ChipLister
}

var buttonSources = []ButtonSource{
	{Name: "gpio", Check: checkGPIOButton,
		Accept: []AcceptStep{{ID: "env.gpio", Title: "this user may open the GPIO chips", Run: acceptGPIO}}},
	{Name: "evdev", Check: checkEvdevButton,
		Accept: []AcceptStep{{ID: "env.input", Title: "this user may read the button keypads", Run: acceptEvdev}}},
	{Name: "terminal"},
}

// ButtonSources returns the button source table.
func ButtonSources() []ButtonSource { return slices.Clone(buttonSources) }

func lookupButtonSource(name string) (ButtonSource, bool) {
	i := slices.IndexFunc(buttonSources, func(s ButtonSource) bool { return s.Name == name })
	if i < 0 {
		return ButtonSource{}, false
	}
	return buttonSources[i], true
}

// ErrSkip marks an acceptance step that found nothing to check; its text
// says why.
var ErrSkip = errors.New("skipped")

func skip(format string, a ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrSkip}, a...)...)
}

func checkGPIOButton(cfg *config.Config, i int, c checker) {
	b, key := cfg.Buttons[i], fmt.Sprintf("button[%d]", i)
	if _, err := gpio.ParseBias(b.Bias); err != nil {
		c.add("%s.bias: %v", key, strings.TrimPrefix(err.Error(), "button/gpio: "))
	}
	c.name(key+".chip", b.Chip, false)
	chipName(c.add, key+".chip", b.Chip)
	if cfg.LED.Chip != "" && gpio.SameChip(cfg.LED.Chip, b.Chip, c.chips) && cfg.LED.Line == b.Line {
		c.add("%s uses GPIO line %d of %s, which the LED drives: a line is either an input or an output; wire the button or the LED to another line", key, b.Line, clip(b.Chip))
	}
}

func checkEvdevButton(cfg *config.Config, i int, c checker) {
	b, key := cfg.Buttons[i], fmt.Sprintf("button[%d]", i)
	if _, err := evdev.ParseKey(b.Key); err != nil {
		c.add("%s.key: %v", key, strings.TrimPrefix(err.Error(), "button/evdev: "))
	}
	c.name(key+".device", b.Device, true)
	c.name(key+".name", b.Name, false)
}

// denied reports whether this user lacks mode (R_OK 4, W_OK 2) on path.
func denied(path string, mode uint32) bool {
	err := syscall.Access(path, mode)
	return errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EPERM)
}

// acceptGPIO checks that the GPIO chips of the buttons, the LED and an
// RC522's reset line exist and open to this user.
func acceptGPIO(_ context.Context, e *AcceptEnv) ([]string, error) {
	cfg := e.Config
	var chips []string
	for _, b := range cfg.Buttons {
		if b.Source == "gpio" {
			chips = append(chips, b.Chip)
		}
	}
	if cfg.LED.Chip != "" {
		chips = append(chips, cfg.LED.Chip)
	}
	if n := cfg.NFC; n.Driver == rc522Driver && n.ResetLine >= 0 {
		chips = append(chips, n.ResetChip) // the RC522's RST line
	}
	slices.Sort(chips)
	chips = slices.Compact(chips)
	if len(chips) == 0 {
		return nil, skip("no GPIO button or LED is configured (GPIO chips: %s)", gpio.DescribeChips(gpio.SystemChips{}))
	}
	notes := []string{"GPIO chips: " + gpio.DescribeChips(gpio.SystemChips{})}
	if err := GPIOLineProblems(cfg, gpio.SystemChips{}); err != nil {
		return notes, gpio.WarnNoChip.Wrap(err)
	}
	for _, c := range chips {
		path, err := gpio.ResolveChip(c, gpio.SystemChips{})
		if err != nil {
			return notes, gpio.WarnChipName.Wrap(err)
		}
		if !strings.HasPrefix(path, "/") {
			path = "/dev/" + path
		}
		if _, err := os.Stat(path); err != nil {
			return notes, gpio.WarnNoChip.Wrap(fmt.Errorf("GPIO chip %s does not exist", path))
		}
		if denied(path, 0x4|0x2) {
			return notes, gpio.WarnPermission.Wrap(fmt.Errorf("this user may not open %s", path))
		}
		notes = append(notes, path+" can be opened")
	}
	return notes, nil
}

// acceptEvdev checks that the keypads exist and are readable, and notes
// an input device that looks like a keyboard-style reader left
// unconfigured.
func acceptEvdev(_ context.Context, e *AcceptEnv) ([]string, error) {
	var notes []string
	if n := kbdReaderNote("/sys/class/input", e.Config.NFC.Driver); n != "" {
		notes = append(notes, n)
	}
	n := 0
	seen := map[string]bool{}
	for _, b := range e.Config.Buttons {
		if b.Source != "evdev" || seen[b.Device+"\x00"+b.Name] {
			continue
		}
		seen[b.Device+"\x00"+b.Name] = true
		n++
		if b.Device == "" {
			// By name: opening is the only way to find it; no grab.
			code, err := evdev.ParseKey(b.Key)
			if err != nil {
				return notes, button.WarnControls.Wrap(err)
			}
			s, err := evdev.Open(&evdev.Options{Name: b.Name, Keys: map[uint16]string{code: b.Control}})
			if err != nil {
				return notes, err
			}
			notes = append(notes, fmt.Sprintf("%q is %s", b.Name, s.Path()))
			s.Close()
			continue
		}
		fi, err := os.Stat(b.Device)
		if err != nil {
			return notes, evdev.WarnNoDevice.Wrap(fmt.Errorf("%s does not exist", b.Device))
		}
		// A FIFO (tests, the simulation) is never opened here: a second
		// reader would take records from the first.
		if denied(b.Device, 0x4) {
			return notes, evdev.WarnPermission.Wrap(fmt.Errorf("this user may not read %s", b.Device))
		}
		if fi.Mode()&fs.ModeNamedPipe != 0 {
			notes = append(notes, b.Device+" is a FIFO (simulated keypad)")
		} else {
			notes = append(notes, b.Device+" can be read")
		}
	}
	if n == 0 {
		return notes, skip("no evdev button is configured")
	}
	return notes, nil
}
