package audio

import (
	"math"
	"slices"
)

// toneEdge is left out at each end of a signal whose tone SNR is
// measured: the tone's onset and release are not steady.
const toneEdge = SampleRate / 10

// ToneSNR is the signal-to-noise ratio in dB of a tone at hz in pcm (at
// sampleRate), as a listener to a steady tone would judge it: in each
// 20 ms frame the tone's phase is fitted by least squares, its amplitude
// is the median over all frames, and the power of that tone is set
// against what is left. Fitting the phase per frame lets a phase step at a
// frame boundary pass (a frame concealed after a loss), while coding
// noise, distortion, a frame faded or missing, and a frequency far off
// count against the tone. The first and last 100 ms are left out; 0 for
// a signal too short or silent, +Inf for a pure tone.
func ToneSNR(pcm []int16, sampleRate int, hz float64) float64 {
	edge := toneEdge * sampleRate / SampleRate
	frame := sampleRate / 50
	if hz <= 0 || frame <= 0 || len(pcm) < 2*edge+frame {
		return 0
	}
	pcm = pcm[edge : len(pcm)-edge]
	w := 2 * math.Pi * hz / float64(sampleRate)
	type fit struct{ a, b, amp float64 }
	fits := make([]fit, 0, len(pcm)/frame)
	amps := make([]float64, 0, cap(fits))
	for off := 0; off+frame <= len(pcm); off += frame {
		a, b := fitSine(pcm[off:off+frame], w, off)
		fits = append(fits, fit{a, b, math.Hypot(a, b)})
		amps = append(amps, math.Hypot(a, b))
	}
	slices.Sort(amps)
	amp := amps[len(amps)/2]
	if amp == 0 {
		return 0
	}
	var sig, noise float64
	for k, f := range fits {
		// The frame's phase at the median amplitude; a frame without the
		// tone keeps cosine phase, its whole energy and the tone's
		// counted as noise.
		a, b := amp, 0.0
		if f.amp > 0 {
			a, b = amp*f.a/f.amp, amp*f.b/f.amp
		}
		off := k * frame
		for i, v := range pcm[off : off+frame] {
			y := a*math.Cos(w*float64(off+i)) + b*math.Sin(w*float64(off+i))
			sig += y * y
			r := float64(v) - y
			noise += r * r
		}
	}
	if noise == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(sig/noise)
}

// fitSine fits a·cos(w·i)+b·sin(w·i) to x (i counted from off) by least
// squares.
func fitSine(x []int16, w float64, off int) (a, b float64) {
	var cc, ss, cs, xc, xs float64
	for i, v := range x {
		c, s := math.Cos(w*float64(off+i)), math.Sin(w*float64(off+i))
		cc += c * c
		ss += s * s
		cs += c * s
		xc += float64(v) * c
		xs += float64(v) * s
	}
	det := cc*ss - cs*cs
	if det == 0 {
		return 0, 0
	}
	return (xc*ss - xs*cs) / det, (xs*cc - xc*cs) / det
}
