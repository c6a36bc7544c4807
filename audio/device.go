package audio

import (
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/pion/mediadevices/pkg/driver"
	// Registers mediadevices' test microphone under the label TestDevice.
	// It is never chosen by default, only by name (tests, the demo).
	_ "github.com/pion/mediadevices/pkg/driver/audiotest"
)

// TestDevice names mediadevices' audiotest microphone: a 480 Hz sine at
// a quarter of full scale, paced in real time.
const TestDevice = "AudioTest"

// TestToneHz is the frequency TestDevice generates (a 100-sample sine
// table at 48 kHz).
const TestToneHz = 480.0

// Device describes one microphone mediadevices knows about.
type Device struct {
	// ID is the backend's device id (an ALSA PCM name such as
	// "hw:CARD=Device,DEV=0", a PulseAudio source name) or TestDevice.
	ID      string
	Name    string // human-readable description, may be empty
	Default bool   // the backend's default capture device
	Test    bool   // TestDevice
	// Rates are the device's native capture rates in Hz, as Microphones
	// probed them; empty when the backend takes any rate (PulseAudio,
	// ALSA plug devices list every standard rate instead). A capture at
	// another rate than 48 kHz is resampled, never refused.
	Rates []int
}

// Microphones lists the capture devices that a Mic can open, default
// first, with their native rates (each device is opened briefly to read
// them, so a device in use may be missing). Placeholders that capture
// silence (ALSA's "null" PCM, miniaudio's null backend) are left out: a
// kiosk without a microphone must say so instead of sending silence.
func Microphones() []Device {
	var out []Device
	for _, c := range candidates(true) {
		if !c.null {
			out = append(out, c.dev)
		}
	}
	return out
}

type candidate struct {
	dev  Device
	drv  driver.Driver
	null bool
}

func candidates(probe bool) []candidate {
	// The host's devices are listed on each call (see hostDrivers); the
	// manager holds only the test microphone.
	drivers := append(hostDrivers(probe), driver.GetManager().Query(driver.FilterAnd(
		driver.FilterDeviceType(driver.Microphone),
		driver.FilterAudioRecorder(),
	))...)
	cs := make([]candidate, 0, len(drivers))
	for _, d := range drivers {
		cs = append(cs, describe(d))
	}
	sortCandidates(cs)
	return cs
}

func describe(d driver.Driver) candidate {
	info := d.Info()
	c := candidate{drv: d, dev: Device{ID: info.Label, Name: info.Name}}
	if info.Label == TestDevice {
		c.dev.Test = true
		return c
	}
	c.dev.ID = decodeLabel(info.Label)
	if h, ok := d.(*hostMic); ok {
		c.dev.Rates = h.nativeRates()
	}
	c.dev.Default = info.Priority == driver.PriorityHigh
	c.null = c.dev.ID == "null" || strings.HasPrefix(info.Name, "NULL ")
	return c
}

// decodeLabel undoes mediadevices' labelling of malgo devices, which is the
// hex of the backend's device id with trailing NULs removed. Labels that
// do not decode to text stay as they are.
func decodeLabel(label string) string {
	b, err := hex.DecodeString(label)
	if err != nil || len(b) == 0 || !utf8.Valid(b) {
		return label
	}
	for _, r := range string(b) {
		if r < 0x20 || r == 0x7f {
			return label
		}
	}
	return string(b)
}

func sortCandidates(cs []candidate) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i].dev, cs[j].dev
		if a.Test != b.Test {
			return !a.Test
		}
		if a.Default != b.Default {
			return a.Default
		}
		return a.ID < b.ID
	})
}

// selectMic picks the driver for want: "" is the default host microphone
// (never TestDevice, never a null placeholder); anything else must match a
// device's ID, mediadevices label or name exactly, or name a listed ALSA
// device in another of ALSA's spellings (alsaname.go).
func selectMic(cs []candidate, want string) (candidate, error) {
	if want == "" {
		for _, c := range cs {
			if !c.null && !c.dev.Test {
				return c, nil
			}
		}
		return candidate{}, ErrNoMicrophone
	}
	for _, c := range cs {
		if c.dev.ID == want || c.drv.Info().Label == want || (c.dev.Name != "" && c.dev.Name == want) {
			return c, nil
		}
	}
	for _, c := range cs {
		if h, ok := c.drv.(*hostMic); ok && sameALSADevice(c.dev.ID, want) {
			if id, ok := alsaDeviceID(want); ok {
				c.drv = h.as(id)
				c.dev.ID = want
				return c, nil
			}
		}
	}
	var names []string
	for _, c := range cs {
		if !c.null {
			names = append(names, fmt.Sprintf("%q", c.dev.ID))
		}
	}
	if len(names) == 0 {
		return candidate{}, fmt.Errorf("%w (wanted %q)", ErrNoMicrophone, want)
	}
	return candidate{}, fmt.Errorf("%w (wanted %q; present: %s)", ErrNoMicrophone, want, strings.Join(names, ", "))
}
