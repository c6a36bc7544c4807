package audio

import (
	"math"
	"math/rand/v2"
	"time"
)

// Simulated rooms and voices, for measuring the Processor (the echo
// benchmark, tests) and for the acceptance check's simulated kiosk.
// Nothing here is recorded: signals are generated from a seed, so runs
// repeat exactly.

// SpeechLike returns d of a speech-like signal at 48 kHz: syllables of
// 120-280 ms, voiced (a pulse train at pitchHz with a little jitter) or
// unvoiced (noise), through two formant resonators that move from
// syllable to syllable, with a pause of 150-500 ms every few syllables.
// Active speech sits near -24 dBFS RMS. Different seeds and pitches make
// different talkers.
func SpeechLike(d time.Duration, pitchHz float64, seed uint64) []int16 {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	n := samplesOf(d)
	out := make([]float64, n)
	var f1, f2 resonator
	phase := 0.0
	for t := 0; t < n; {
		if r.IntN(4) == 0 {
			t += samplesOf(time.Duration(150+r.IntN(350)) * time.Millisecond)
			continue
		}
		syl := samplesOf(time.Duration(120+r.IntN(160)) * time.Millisecond)
		voiced := r.IntN(5) != 0
		f1.tune(300+r.Float64()*600, 90)
		f2.tune(900+r.Float64()*1600, 120)
		pitch := pitchHz * (0.85 + 0.3*r.Float64())
		for i := 0; i < syl && t < n; i, t = i+1, t+1 {
			var e float64
			if voiced {
				phase += pitch / SampleRate
				if phase >= 1 {
					phase -= 1 + 0.01*(r.Float64()-0.5)
					e = 1
				}
			} else {
				e = 0.15 * (r.Float64()*2 - 1)
			}
			env := math.Sin(math.Pi * float64(i) / float64(syl))
			out[t] = env * (f1.step(e) + 0.5*f2.step(e))
		}
	}
	return normalise(out, -24)
}

// resonator is a two-pole band-pass filter (a formant).
type resonator struct{ a1, a2, g, y1, y2 float64 }

func (f *resonator) tune(hz, bandwidth float64) {
	rad := math.Exp(-math.Pi * bandwidth / SampleRate)
	f.a1 = 2 * rad * math.Cos(2*math.Pi*hz/SampleRate)
	f.a2 = -rad * rad
	f.g = 1 - rad
}

func (f *resonator) step(x float64) float64 {
	y := f.g*x + f.a1*f.y1 + f.a2*f.y2
	f.y2, f.y1 = f.y1, y
	return y
}

// normalise scales active samples (the loud part) to dbfs RMS.
func normalise(x []float64, dbfs float64) []int16 {
	var sum float64
	var k int
	for _, v := range x {
		if v != 0 {
			sum += v * v
			k++
		}
	}
	out := make([]int16, len(x))
	if k == 0 {
		return out
	}
	g := math.Pow(10, dbfs/20) * math.MaxInt16 / math.Sqrt(sum/float64(k))
	for i, v := range x {
		out[i] = saturate(v * g)
	}
	return out
}

// EchoPath is a simulated speaker-to-microphone path: a delay, an
// attenuation, and a room impulse response of sparse reflections after
// the direct sound (an image-method-like pattern: arrivals about a
// millisecond apart, starting 14 dB under the direct sound and decaying
// exponentially with the room's reverberation time; with 150-200 ms the
// direct sound is 3-4 dB above all the reverberation, as for a speaker a
// hand's width from the microphone).
type EchoPath struct {
	Delay         time.Duration // to the direct sound
	AttenuationDB float64       // of the direct sound, 0..
	taps          []pathTap
}

type pathTap struct {
	at   int
	gain float64
}

// NewEchoPath makes a path whose reflections decay with rt60 over span
// after the direct sound.
func NewEchoPath(delay time.Duration, attenuationDB float64, rt60, span time.Duration, seed uint64) *EchoPath {
	r := rand.New(rand.NewPCG(seed, 1))
	p := &EchoPath{Delay: delay, AttenuationDB: attenuationDB}
	direct := math.Pow(10, -attenuationDB/20)
	p.taps = append(p.taps, pathTap{samplesOf(delay), direct})
	// -60 dB after rt60: amplitude exp(-6.9 t / rt60).
	for t := 2 * time.Millisecond; t < span; t += time.Duration(200+r.IntN(1800)) * time.Microsecond {
		a := 0.2 * direct * math.Exp(-6.9*t.Seconds()/rt60.Seconds())
		if r.IntN(2) == 0 {
			a = -a
		}
		p.taps = append(p.taps, pathTap{samplesOf(delay + t), a})
	}
	return p
}

// Span is how many samples of the speaker's past the path reaches back.
func (p *EchoPath) Span() int { return p.taps[len(p.taps)-1].at + 1 }

// At returns the echo at the newest sample of played (the speaker's
// output, newest last); what lies before played counts as silence.
func (p *EchoPath) At(played []int16) float64 {
	var v float64
	last := len(played) - 1
	for _, tp := range p.taps {
		if tp.at > last {
			break
		}
		v += tp.gain * float64(played[last-tp.at])
	}
	return v
}

// Apply returns the echo of far as the microphone hears it.
func (p *EchoPath) Apply(far []int16) []float64 {
	out := make([]float64, len(far))
	for _, tp := range p.taps {
		for i := tp.at; i < len(far); i++ {
			out[i] += tp.gain * float64(far[i-tp.at])
		}
	}
	return out
}

// Mix adds signals sample by sample, saturating to 16 bits; shorter
// ones count as silence past their end.
func Mix(n int, parts ...[]float64) []int16 {
	out := make([]int16, n)
	for i := range out {
		var v float64
		for _, p := range parts {
			if i < len(p) {
				v += p[i]
			}
		}
		out[i] = saturate(v)
	}
	return out
}

// Float returns pcm as float64 samples.
func Float(pcm []int16) []float64 {
	out := make([]float64, len(pcm))
	for i, v := range pcm {
		out[i] = float64(v)
	}
	return out
}
