package station_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

const agent = "[agent]\nurl = \"https://agent.example\"\n"

func parse(t *testing.T, text string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(text))
	if err != nil {
		t.Fatalf("config.Parse: %v", err)
	}
	return cfg
}

// Keys that config.Validate accepts but no device could ever open are
// refused by Check, each naming its key.
func TestCheckRefusesKeysThatCanNeverOpen(t *testing.T) {
	for name, tc := range map[string]struct{ text, want string }{
		"evdev key":   {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\nname = \"kbd\"\nkey = \"KEY_NOPE\"\n", "button[0].key: unknown key name"},
		"evdev code":  {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\nname = \"kbd\"\nkey = \"70000\"\n", "button[0].key"},
		"gpio bias":   {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 3\nbias = \"sideways\"\n", "button[0].bias: unknown bias"},
		"evdev bias":  {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\nname = \"kbd\"\nkey = \"KEY_A\"\nbias = \"pull-up\"\n", "button[0].bias applies only to gpio"},
		"evdev path":  {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\ndevice = \"input/event3\"\nkey = \"KEY_A\"\n", "button[0].device must be an absolute device path"},
		"chip path":   {agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"sys/gpiochip0\"\nline = 3\n", "button[0].chip must be a chip name"},
		"camera ctrl": {agent + "[camera]\ndevice = \"cam\\u0007\"\n", "camera.device contains a control"},
		"reader long": {agent + "[nfc]\nreader = \"" + strings.Repeat("r", 200) + "\"\n", "nfc.reader is longer than 128"},
		"kbd path":    {agent + "[nfc]\ndriver = \"keyboard\"\ndevice = \"input/event3\"\n", "nfc.device must be an absolute device path"},
		"led=button":  {agent + "[led]\nchip = \"gpiochip0\"\nline = 5\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"/dev/gpiochip0\"\nline = 5\n", "which the LED drives"},
	} {
		err := station.Check(parse(t, tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Check = %v, want an error naming %q", name, err, tc.want)
		}
	}
}

// Every problem is reported at once, and good configurations pass.
func TestCheckReportsAllAndPassesGoodOnes(t *testing.T) {
	two := agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\nname = \"kbd\"\nkey = \"KEY_NOPE\"\n" +
		"[[button]]\ncontrol = \"photo\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 3\nbias = \"sideways\"\n"
	err := station.Check(parse(t, two))
	if p, ok := err.(config.Problems); !ok || len(p) != 2 {
		t.Fatalf("Check = %#v, want two problems", err)
	}
	for _, good := range []string{
		agent,
		agent + "[[button]]\ncontrol = \"scan\"\nsource = \"evdev\"\ndevice = \"/dev/input/by-id/usb-kbd-event-kbd\"\nkey = \"KEY_F1\"\n" +
			"[[button]]\ncontrol = \"photo\"\nsource = \"evdev\"\nname = \"Foot Switch\"\nkey = \"0x1c\"\n" +
			"[[button]]\ncontrol = \"cancel\"\nsource = \"gpio\"\nchip = \"gpiochip0\"\nline = 3\nbias = \"pull-up\"\n" +
			"[led]\nchip = \"gpiochip0\"\nline = 4\n[camera]\ndevice = \"VideoTest\"\n",
	} {
		if err := station.Check(parse(t, good)); err != nil {
			t.Errorf("Check(%q) = %v", good, err)
		}
	}
}

type piChips []gpio.ChipInfo

func (p piChips) Chips() ([]gpio.ChipInfo, error) { return p, nil }

// The LED and a button on one line are refused however each names the
// chip: on a Pi 5 with a new kernel "header", "pinctrl-rp1" and "gpiochip0"
// are one chip.
func TestCheckLEDAndButtonOnOneLineByLabel(t *testing.T) {
	pi5 := piChips{{Name: "gpiochip0", Label: "pinctrl-rp1", Lines: 54}, {Name: "gpiochip10", Label: "gpio-brcmstb@107d508500", Lines: 32}}
	conf := func(led, button string) string {
		return agent + "[led]\nchip = \"" + led + "\"\nline = 5\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"" + button + "\"\nline = 5\n"
	}
	for _, c := range [][2]string{{"header", "gpiochip0"}, {"gpiochip0", "pinctrl-rp1"}, {"pinctrl-rp1", "header"}} {
		err := station.CheckWith(parse(t, conf(c[0], c[1])), pi5)
		if err == nil || !strings.Contains(err.Error(), "which the LED drives") {
			t.Errorf("LED on %s, button on %s: %v; want the clash refused", c[0], c[1], err)
		}
	}
	if err := station.CheckWith(parse(t, conf("header", "gpiochip10")), pi5); err != nil {
		t.Errorf("LED on the header, button on another chip: %v", err)
	}
}
