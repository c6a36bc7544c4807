package audiotest

import (
	"math"

	"github.com/agentcall/acbridge/audio"
)

// SpeechLike is n samples (48 kHz mono) of a voiced signal the encoder's
// speech detector takes for speech: a harmonic series, its pitch gliding
// and its level changing at a syllable's rate. SILK adds the in-band FEC
// copy only to frames it deems active speech, so a test of FEC needs
// this rather than a steady tone.
func SpeechLike(n int) []int16 {
	pcm := make([]int16, n)
	for i := range pcm {
		x := float64(i) / audio.SampleRate
		env := 0.6 + 0.4*math.Sin(2*math.Pi*4*x)
		ph := 2 * math.Pi * (150*x + 10*math.Sin(2*math.Pi*3*x)/(2*math.Pi*3))
		var v float64
		for h := 1; h <= 12; h++ {
			v += math.Sin(float64(h)*ph) / float64(h)
		}
		pcm[i] = int16(6000 * env * v)
	}
	return pcm
}

// Tone is n samples (48 kHz mono) of a sine at hz, its peak level a
// fraction of full scale.
func Tone(hz, level float64, n int) []int16 {
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(math.Round(level * math.MaxInt16 * math.Sin(2*math.Pi*hz*float64(i)/audio.SampleRate)))
	}
	return pcm
}
