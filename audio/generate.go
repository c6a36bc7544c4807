package audio

import (
	"fmt"
	"math"
	"time"
)

// Defaults of the generated voice-like reply.
const (
	DefaultVoicePitch    = 440.0
	DefaultVoiceDuration = 600 * time.Millisecond
	DefaultVoiceLevel    = 0.5
)

// VoiceOptions shape the reply signal. The zero value means the defaults.
type VoiceOptions struct {
	Pitch    float64       // fundamental in Hz, 80..4000; 0 means 440
	Duration time.Duration // 20 ms..10 s; 0 means 600 ms
	Level    float64       // upper bound of the peak, fraction of full scale, (0, 1]; 0 means 0.5
}

func (o *VoiceOptions) resolve() (VoiceOptions, error) {
	v := VoiceOptions{Pitch: DefaultVoicePitch, Duration: DefaultVoiceDuration, Level: DefaultVoiceLevel}
	if o != nil {
		if o.Pitch != 0 {
			v.Pitch = o.Pitch
		}
		if o.Duration != 0 {
			v.Duration = o.Duration
		}
		if o.Level != 0 {
			v.Level = o.Level
		}
	}
	switch {
	case !(v.Pitch >= 80 && v.Pitch <= 4000):
		return v, fmt.Errorf("%w: voice pitch %g Hz outside 80..4000", ErrBadConfig, v.Pitch)
	case v.Duration < FrameDuration || v.Duration > 10*time.Second:
		return v, fmt.Errorf("%w: voice duration %v outside 20ms..10s", ErrBadConfig, v.Duration)
	case !(v.Level > 0 && v.Level <= 1):
		return v, fmt.Errorf("%w: voice level %g outside (0, 1]", ErrBadConfig, v.Level)
	}
	return v, nil
}

// Voice generates a short vowel-like signal at 48 kHz mono: the
// fundamental with two weaker harmonics (so the fundamental stays the
// dominant frequency), a 4 Hz syllable-rate swell, and smooth onset and
// release so it starts and ends without clicks. It is deterministic, so
// a receiver can check duration, level and pitch.
func Voice(opts *VoiceOptions) ([]int16, error) {
	v, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	n := int(v.Duration * SampleRate / time.Second)
	attack := SampleRate * 15 / 1000
	release := SampleRate * 40 / 1000
	const h2, h3 = 0.35, 0.2
	norm := v.Level * (math.MaxInt16) / (1 + h2 + h3)
	pcm := make([]int16, n)
	for i := range pcm {
		t := float64(i) / SampleRate
		w := 2 * math.Pi * v.Pitch * t
		s := math.Sin(w) + h2*math.Sin(2*w) + h3*math.Sin(3*w)
		env := 0.85 + 0.15*math.Cos(2*math.Pi*4*t)
		switch {
		case i < attack:
			env *= 0.5 - 0.5*math.Cos(math.Pi*float64(i)/float64(attack))
		case i >= n-release:
			env *= 0.5 - 0.5*math.Cos(math.Pi*float64(n-1-i)/float64(release))
		}
		pcm[i] = int16(math.Round(norm * env * s))
	}
	return pcm, nil
}

// VoicePackets is Voice encoded to 20 ms Opus packets, ready for
// track.WriteSample: the reference agent's answer to a committed turn.
func VoicePackets(opts *VoiceOptions, enc *EncoderOptions) ([]Packet, error) {
	pcm, err := Voice(opts)
	if err != nil {
		return nil, err
	}
	return EncodePCM(pcm, enc)
}
