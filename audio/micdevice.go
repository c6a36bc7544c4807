package audio

import (
	"fmt"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/prop"
)

// Microphones come and go: a USB microphone plugged in after the daemon
// started, or pulled and plugged back between two engagements. Readers and
// cameras are found again when they come back, so the microphone is too:
// the host's capture devices are listed again before every capture run,
// and the configured one is picked by its ID or name as at the start.

// listFor lists the candidates for the microphone named want. A named
// device is found by name alone, without opening any (a few
// milliseconds). The default ("") must be a device that captures: a
// hint such as ALSA's "default" on a Pi whose first card is HDMI names
// no microphone, so each device is probed, and those that cannot be
// opened for capture are left out (about ten milliseconds).
func listFor(want string) []candidate {
	return candidates(want == "")
}

// use makes c the Mic's device. m.mu must be held, or the Mic not yet
// shared.
func (m *Mic) use(c candidate) error {
	rec, ok := c.drv.(driver.AudioRecorder)
	if !ok {
		return fmt.Errorf("%w: driver %q records no audio", ErrBadConfig, c.dev.ID)
	}
	m.drv, m.rec, m.name = c.drv, rec, c.dev.ID
	return nil
}

// lookUp lists the host's microphones again and takes the configured one.
// A microphone that went away is an error that says so; the next lookUp
// finds it again once it is back. m.mu must be held, with no run on.
func (m *Mic) lookUp() error {
	if m.fixed {
		return nil
	}
	c, err := selectMic(listFor(m.want), m.want)
	if err != nil {
		m.log.Warn("audio: microphone not found", "device", m.name, "err", err)
		return fmt.Errorf("audio: microphone %q is not there now (unplugged?); it is used again as soon as it is back: %w", m.name, err)
	}
	if c.dev.ID != m.name {
		m.log.Info("audio: microphone changed", "from", m.name, "to", c.dev.ID)
	}
	return m.use(c)
}

// deviceRate records the rate a run's device delivers; a rate that needs
// resampling is logged when it first appears, since it explains a device
// that delivers something else than the profile's 48 kHz.
func (m *Mic) deviceRate(name string, rate int) {
	m.mu.Lock()
	prev := m.stats.Rate
	m.stats.Rate = rate
	m.mu.Unlock()
	switch {
	case rate == prev:
	case rate == SampleRate:
		m.log.Debug("audio: microphone captures at 48 kHz", "device", name)
	default:
		m.log.Info("audio: microphone captures at its own rate; resampling to 48 kHz",
			"device", name, "rate", rate, "quality", ResampleQuality)
	}
}

// pickProp takes the device's 48 kHz format, mono if it has one, which
// needs no resampling; without one, the format at the highest rate, mono
// if it has one, which the capture resamples (resample.go). A rate of 0 is
// the host driver's "the device's own rate" and ranks below 48 kHz. A
// channel count of 0 is miniaudio's "any" and is asked for as mono, which
// miniaudio then converts to. mediadevices' drivers list formats only
// while open.
func pickProp(ps []prop.Media) (prop.Media, error) {
	best := -1
	rank := func(p prop.Media) int {
		r := p.SampleRate
		if r == SampleRate {
			r = 1 << 30
		}
		if p.ChannelCount == Channels {
			r++ // a tie at the same rate goes to mono
		}
		return r
	}
	for i := range ps {
		if ps[i].ChannelCount <= 0 {
			ps[i].ChannelCount = Channels
		}
		if ps[i].SampleRate < 0 {
			continue
		}
		if best < 0 || rank(ps[i]) > rank(ps[best]) {
			best = i
		}
	}
	if best < 0 {
		return prop.Media{}, fmt.Errorf("%w: the device offers no capture format", ErrBadConfig)
	}
	return ps[best], nil
}
