package gpio

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// standIn describes the chips of a machine this test does not run on.
type standIn []ChipInfo

func (s standIn) Chips() ([]ChipInfo, error) { return s, nil }

type failingLister struct{}

func (failingLister) Chips() ([]ChipInfo, error) { return nil, errors.New("no /dev") }

// The chips gpiodetect shows on each Pi (raspberrypi/linux#6144 for the
// Pi 5's renumbering with 6.6.45).
var (
	pi3 = standIn{{"gpiochip0", "pinctrl-bcm2835", 54, nil}, {"gpiochip1", "raspberrypi-exp-gpio", 8, nil}}
	pi4 = standIn{{"gpiochip0", "pinctrl-bcm2711", 58, nil}, {"gpiochip1", "raspberrypi-exp-gpio", 8, nil}}
	pi5 = standIn{ // kernel < 6.6.45
		{"gpiochip0", "gpio-brcmstb@107d508500", 32, nil}, {"gpiochip1", "gpio-brcmstb@107d508520", 4, nil},
		{"gpiochip2", "gpio-brcmstb@107d517c00", 17, nil}, {"gpiochip3", "gpio-brcmstb@107d517c20", 6, nil},
		{"gpiochip4", "pinctrl-rp1", 54, nil}}
	pi5new = standIn{ // kernel >= 6.6.45
		{"gpiochip0", "pinctrl-rp1", 54, nil}, {"gpiochip10", "gpio-brcmstb@107d508500", 32, nil},
		{"gpiochip11", "gpio-brcmstb@107d508520", 4, nil}, {"gpiochip12", "gpio-brcmstb@107d517c00", 17, nil},
		{"gpiochip13", "gpio-brcmstb@107d517c20", 6, nil}}
	pc = standIn{{"gpiochip0", "INT34C5:00", 360, nil}}
)

func TestResolveChipHeader(t *testing.T) {
	for _, c := range []struct {
		name  string
		chips standIn
		want  string
	}{
		{"pi3", pi3, "gpiochip0"},
		{"pi4", pi4, "gpiochip0"},
		{"pi5 old kernel", pi5, "gpiochip4"},
		{"pi5 new kernel", pi5new, "gpiochip0"},
	} {
		got, err := ResolveChip(Header, c.chips)
		if err != nil || got != c.want {
			t.Errorf("%s: header = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	_, err := ResolveChip(Header, pc)
	if err == nil || !strings.Contains(err.Error(), "gpiochip0 [INT34C5:00] (360 lines)") {
		t.Errorf("header on a PC: %v; want an error listing the chips", err)
	}
}

func TestResolveChipLabel(t *testing.T) {
	if got, err := ResolveChip("pinctrl-rp1", pi5); err != nil || got != "gpiochip4" {
		t.Errorf("pinctrl-rp1 on an old Pi 5 kernel = %q, %v; want gpiochip4", got, err)
	}
	if got, err := ResolveChip("pinctrl-rp1", pi5new); err != nil || got != "gpiochip0" {
		t.Errorf("pinctrl-rp1 on a new Pi 5 kernel = %q, %v; want gpiochip0", got, err)
	}
	if _, err := ResolveChip("pinctrl-bcm2711", pi3); err == nil || !strings.Contains(err.Error(), "pinctrl-bcm2835") {
		t.Errorf("a Pi 4 label on a Pi 3: %v; want an error listing the Pi 3's chips", err)
	}
	if _, err := ResolveChip(Header, failingLister{}); err == nil {
		t.Error("a failing chip list gave no error")
	}
}

// Names and paths are used as they are: the chips are not listed (the
// failing lister would fail).
func TestResolveChipPassesPaths(t *testing.T) {
	for _, chip := range []string{"/dev/gpiochip0", "/dev/gpiochip-buttons", "null"} {
		if got, err := ResolveChip(chip, failingLister{}); err != nil || got != chip {
			t.Errorf("%q = %q, %v; want it unchanged", chip, got, err)
		}
	}
}

func TestDescribeChips(t *testing.T) {
	want := "gpiochip0 [pinctrl-rp1] (54 lines), gpiochip10 [gpio-brcmstb@107d508500] (32 lines)"
	if got := DescribeChips(pi5new[:2]); got != want {
		t.Errorf("DescribeChips = %q, want %q", got, want)
	}
	if got := DescribeChips(standIn{{Name: "gpiochip0"}}); !strings.Contains(got, "label unreadable") {
		t.Errorf("unreadable chip described as %q", got)
	}
}

// A button and the LED are on one chip whether it is named by label, by
// "header" or by device, on every Pi; different chips stay different.
func TestSameChip(t *testing.T) {
	for _, c := range []struct {
		a, b  string
		chips standIn
		want  bool
	}{
		{"gpiochip0", "gpiochip0", pc, true},
		{"gpiochip0", "/dev/gpiochip0", pc, true},
		{"header", "gpiochip4", pi5, true},
		{"header", "gpiochip0", pi5, false},
		{"header", "gpiochip0", pi5new, true},
		{"pinctrl-rp1", "gpiochip0", pi5new, true},
		{"pinctrl-rp1", "header", pi5, true},
		{"pinctrl-bcm2711", "gpiochip0", pi4, true},
		{"pinctrl-bcm2711", "gpiochip1", pi4, false},
		{"raspberrypi-exp-gpio", "header", pi3, false},
		{"header", "gpiochip0", nil, false},
	} {
		if got := SameChip(c.a, c.b, c.chips); got != c.want {
			t.Errorf("SameChip(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if SameChip("header", "gpiochip0", failingLister{}) {
		t.Error("an unlistable header chip matched gpiochip0")
	}
}

// A chip the service user may not open is a permission to fix, not a
// board that is not a Pi (the VM's system tier without the udev rule).
func TestResolveChipHeaderUnreadable(t *testing.T) {
	denied := &os.PathError{Op: "open", Path: "/dev/gpiochip0", Err: syscall.EACCES}
	l := standIn{{Name: "gpiochip0", Err: denied}}
	_, err := ResolveChip(Header, l)
	if err == nil || strings.Contains(err.Error(), "not a Raspberry Pi") || !strings.Contains(err.Error(), "group gpio") ||
		!strings.Contains(err.Error(), "gpiochip0 [label unreadable]") {
		t.Errorf("header with an unreadable chip: %v; want the permission and its fix", err)
	}
}
