package audio

import (
	"sync"
	"time"
)

// Onset detection for measuring the delay of a voice path: the same rule
// applied where a sound is made and where it comes out finds the same
// instant of it at both ends.
const (
	// OnsetLevel is a sample's magnitude (-24 dBFS) at which sound is
	// taken to start: above the coding noise of a silence or a quiet
	// room, below the first cycle of a tone or vowel at -12 dBFS.
	OnsetLevel = 2048
	// OnsetQuiet is how long every sample must have stayed below
	// OnsetLevel before a sample at or above it is an onset: longer than
	// the dips inside a tone's or a vowel's cycles and a decoder's tail.
	OnsetQuiet = 200 * time.Millisecond
	// maxOnsets bounds what an OnsetDetector keeps between Takes.
	maxOnsets = 64
)

// OnsetDetector finds where sound starts after a silence in a stream of
// PCM (48 kHz mono) and when: each onset's time is the time its buffer
// was given with plus the onset sample's offset in it. It keeps at most
// 64 onsets between Takes, the first ones. Safe for concurrent use (a
// Speaker's Monitor runs on the device's thread).
type OnsetDetector struct {
	mu     sync.Mutex
	quiet  int // samples below OnsetLevel since the last one at or above it
	onsets []time.Time
}

// NewOnsetDetector starts in silence: the first sample at OnsetLevel is
// an onset.
func NewOnsetDetector() *OnsetDetector {
	return &OnsetDetector{quiet: onsetQuietSamples}
}

var onsetQuietSamples = int(OnsetQuiet * SampleRate / time.Second)

// Listen looks for onsets in pcm, whose first sample is at time at.
func (d *OnsetDetector) Listen(pcm []int16, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for i, v := range pcm {
		if v > -OnsetLevel && v < OnsetLevel {
			d.quiet++
			continue
		}
		if d.quiet >= onsetQuietSamples && len(d.onsets) < maxOnsets {
			d.onsets = append(d.onsets, at.Add(samplesDuration(i)))
		}
		d.quiet = 0
	}
}

// Take returns the onsets found since the last Take and forgets them.
func (d *OnsetDetector) Take() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	o := d.onsets
	d.onsets = nil
	return o
}

// Onsets returns the offsets of the onsets in pcm, which starts in
// silence: the OnsetDetector's rule applied to a whole signal.
func Onsets(pcm []int16) []time.Duration {
	d := NewOnsetDetector()
	var zero time.Time
	d.Listen(pcm, zero)
	var offs []time.Duration
	for _, at := range d.Take() {
		offs = append(offs, at.Sub(zero))
	}
	return offs
}

// deviceClock times the buffers a device takes by its sample clock. A
// device that fell behind takes several buffers at once (miniaudio's
// null backend does, on a busy host), and each of those plays one buffer
// after the one before it, not at the callback's time. A buffer taken
// later than the clock says (the device stalled) sets the clock anew, and
// so does one taken more than maxLead early, which no device's buffer
// holds: a clock running fast does not drift away.
type deviceClock struct {
	start   time.Time
	samples int // taken since start
}

const maxLead = 200 * time.Millisecond

// at returns when a buffer of n samples, taken at now, starts playing.
func (c *deviceClock) at(now time.Time, n int) time.Time {
	at := c.start.Add(samplesDuration(c.samples))
	if !at.After(now) || at.Sub(now) > maxLead {
		c.start, c.samples, at = now, 0, now
	}
	c.samples += n
	return at
}
