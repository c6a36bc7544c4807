package station

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
)

// A GPIO line beyond its chip's last line, and a chip the machine does not
// have, are named with their keys before anything is opened.
func TestGPIOLineProblems(t *testing.T) {
	pi4 := chipList{{Name: "gpiochip0", Label: "pinctrl-bcm2711", Lines: 58}, {Name: "gpiochip1", Label: "raspberrypi-exp-gpio", Lines: 8}}
	const agent = "[agent]\nurl = \"https://agent.example\"\n"
	button := func(chip string, line int) string {
		return agent + "[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"" + chip + "\"\nline = " + strconv.Itoa(line) + "\n"
	}
	for _, tc := range []struct {
		name, text string
		want       []string // nil: no problem
	}{
		{"header line 99", button("header", 99), []string{"button[0].line 99: gpiochip0 [pinctrl-bcm2711] has lines 0 to 57"}},
		{"header line 57", button("header", 57), nil},
		{"by name", button("gpiochip0", 17), nil},
		{"by label", button("raspberrypi-exp-gpio", 8), []string{"button[0].line 8: gpiochip1 [raspberrypi-exp-gpio] has lines 0 to 7"}},
		{"missing chip", button("gpiochip7", 4), []string{`button[0].chip "gpiochip7": no GPIO chip has this name or label; GPIO chips here: gpiochip0 [pinctrl-bcm2711] (58 lines)`}},
		{"missing path", button("/dev/gpiochip-acbridge-none", 4), []string{`button[0].chip "/dev/gpiochip-acbridge-none": does not exist`}},
		{"led", agent + "[led]\nchip = \"header\"\nline = 60\n", []string{"led.line 60: gpiochip0"}},
		{"rc522 reset", agent + "[nfc]\ndriver = \"rc522\"\ndevice = \"/dev/spidev0.0\"\nreset_chip = \"gpiochip9\"\nreset_line = 25\n", []string{`nfc.reset_chip "gpiochip9": no GPIO chip`}},
	} {
		cfg, err := config.Parse([]byte(tc.text))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err = GPIOLineProblems(cfg, pi4)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		for _, w := range tc.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", tc.name, err, w)
			}
		}
	}
	// A machine without the Pi's header says so, with the key.
	cfg, _ := config.Parse([]byte(button("header", 4)))
	if err := GPIOLineProblems(cfg, chipList{}); err == nil || !strings.Contains(err.Error(), `button[0].chip "header": no chip labelled pinctrl-rp1`) {
		t.Errorf("no header: %v", err)
	}
}

// Start-up and doctor's env.gpio step both refuse a chip this machine does
// not have, naming the key.
func TestMissingGPIOChipAtStartAndInDoctor(t *testing.T) {
	cfg, err := config.Parse([]byte("[agent]\nurl = \"https://agent.example\"\n[modalities]\nenabled = []\n[[button]]\ncontrol = \"scan\"\nsource = \"gpio\"\nchip = \"gpiochip-acbridge-none\"\nline = 4\n"))
	if err != nil {
		t.Fatal(err)
	}
	const want = `button[0].chip "gpiochip-acbridge-none": no GPIO chip has this name or label`
	if s, err := Open(context.Background(), cfg, nil); err == nil || !strings.Contains(err.Error(), want) {
		if err == nil {
			s.Close()
		}
		t.Errorf("start-up: %v, want %q", err, want)
	}
	if _, err := acceptGPIO(context.Background(), &AcceptEnv{Config: cfg}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("doctor: %v, want %q", err, want)
	}
}

// chipList describes the GPIO chips of a machine the test does not run on.
type chipList []gpio.ChipInfo

func (c chipList) Chips() ([]gpio.ChipInfo, error) { return c, nil }
