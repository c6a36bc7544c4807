package gpio

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/warthog618/go-gpiocdev"
)

// Header is the chip value that means "the chip of the 40-pin header",
// whichever Raspberry Pi and kernel this is.
const Header = "header"

// headerLabels are the labels of the 40-pin header's chip, newest Pi
// first. The Pi 5's moved from gpiochip4 to gpiochip0 with kernel 6.6.45
// (raspberrypi/linux#6144) but kept its label, so labels are what stays.
var headerLabels = []string{"pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835"}

// ChipInfo describes one GPIO chip as gpiodetect shows it.
type ChipInfo struct {
	Name  string // "gpiochip0"
	Label string // "pinctrl-rp1"
	Lines int
	// Err is why the chip could not be opened for its label ("" and 0
	// then), such as a permission the service user lacks.
	Err error
}

// ChipLister describes the machine's GPIO chips; SystemChips reads the
// real ones, tests describe the chips of a Pi they do not have.
type ChipLister interface {
	Chips() ([]ChipInfo, error)
}

// SystemChips lists the chips in /dev with go-gpiocdev.
type SystemChips struct{}

// Chips opens every /dev/gpiochip* for its label and line count. A chip
// this user may not open is listed without them rather than hidden, so
// that doctor shows it.
func (SystemChips) Chips() ([]ChipInfo, error) {
	var out []ChipInfo
	for _, name := range gpiocdev.Chips() {
		info := ChipInfo{Name: name}
		if c, err := gpiocdev.NewChip(name); err == nil {
			info.Label, info.Lines = c.Label, c.Lines()
			c.Close()
		} else {
			info.Err = err
		}
		out = append(out, info)
	}
	return out, nil
}

// ResolveChip turns a configured chip into a device name: "header" picks
// the 40-pin header's chip, a chip's label (pinctrl-rp1) picks that chip,
// and anything else — gpiochipN, a path, a udev link — is returned as it
// is, without listing the chips.
func ResolveChip(chip string, l ChipLister) (string, error) {
	if !needsResolve(chip) {
		return chip, nil
	}
	chips, err := l.Chips()
	if err != nil {
		return "", fmt.Errorf("button/gpio: listing GPIO chips for %q: %w", truncate(chip), err)
	}
	want := []string{chip}
	if chip == Header {
		want = headerLabels
	}
	for _, label := range want {
		for _, c := range chips {
			if c.Label == label {
				return c.Name, nil
			}
		}
	}
	if chip == Header {
		if c, ok := unreadable(chips); ok {
			// Not the wrong board: the labels could not be read.
			return "", fmt.Errorf("button/gpio: chip \"header\": %s cannot be opened to read its label (%v): the service user needs group gpio on the chips, which the package's udev rule (70-acbridge.rules) gives; `ls -l /dev/gpiochip*` shows the owner (chips here: %s)",
				c.Name, c.Err, describeChips(chips))
		}
		return "", fmt.Errorf("button/gpio: chip \"header\": no chip labelled %s (this is not a Raspberry Pi, or its kernel is unknown); set chip to a name gpiodetect lists (chips here: %s)",
			strings.Join(headerLabels, ", "), describeChips(chips))
	}
	return "", fmt.Errorf("button/gpio: no GPIO chip named or labelled %q; gpiodetect lists the chips (here: %s)", truncate(chip), describeChips(chips))
}

// unreadable returns the first chip refused for lack of permission.
func unreadable(chips []ChipInfo) (ChipInfo, bool) {
	for _, c := range chips {
		if errors.Is(c.Err, fs.ErrPermission) {
			return c, true
		}
	}
	return ChipInfo{}, false
}

// needsResolve reports whether chip is a label rather than a device: a
// path or a name present in /dev is used as it is.
func needsResolve(chip string) bool {
	if chip == Header {
		return true
	}
	if chip == "" || strings.Contains(chip, "/") {
		return false
	}
	_, err := os.Lstat("/dev/" + chip)
	return err != nil
}

// DescribeChips is the chip list doctor prints: "gpiochip0 [pinctrl-rp1]
// (54 lines)".
func DescribeChips(l ChipLister) string {
	chips, err := l.Chips()
	if err != nil {
		return err.Error()
	}
	return describeChips(chips)
}

func describeChips(chips []ChipInfo) string {
	if len(chips) == 0 {
		return "none"
	}
	s := make([]string, len(chips))
	for i, c := range chips {
		label := c.Label
		if label == "" {
			label = "label unreadable"
		}
		s[i] = fmt.Sprintf("%s [%s] (%d lines)", c.Name, label, c.Lines)
	}
	return strings.Join(s, ", ")
}

// SameChip reports whether the configured chips a and b name the same
// device, so that a button and the LED configured one by label
// ("pinctrl-rp1" or "header") and the other by name ("gpiochip0") are seen
// on one line. Names and labels are matched against l's chips, paths and
// udev links are followed; a chip that resolves to nothing is compared by
// its text, since the open refuses it anyway.
func SameChip(a, b string, l ChipLister) bool {
	if a == b {
		return true
	}
	var chips []ChipInfo
	if needsResolve(a) || needsResolve(b) {
		chips, _ = l.Chips()
	}
	return canonicalChip(a, chips) == canonicalChip(b, chips)
}

func canonicalChip(chip string, chips []ChipInfo) string {
	want := []string{chip}
	if chip == Header {
		want = headerLabels
	}
	for _, label := range want {
		for _, c := range chips {
			if c.Label == label || c.Name == label {
				return c.Name
			}
		}
	}
	path := chip
	if !strings.HasPrefix(path, "/") {
		path = "/dev/" + path
	}
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	return strings.TrimPrefix(path, "/dev/")
}
