package audio

import (
	"math"
	"slices"
	"time"
)

// fullScale is the magnitude of the most negative 16-bit sample; levels
// below are fractions of it (1.0 = 0 dBFS).
const fullScale = 32768.0

// Levels summarises a stretch of 48 kHz mono PCM for tests and the
// hardware acceptance checks.
type Levels struct {
	Duration   time.Duration
	RMS        float64 // of the whole signal, fraction of full scale
	Peak       float64 // largest magnitude, fraction of full scale
	Clipped    int     // samples at the rails (-32768 or 32767)
	NoiseFloor float64 // RMS of the quietest 20 ms windows (10th percentile)
	Dominant   float64 // strongest frequency in Hz, 0 for silence
	// ToneSNR is ToneSNR at Dominant, in dB: meaningful for a tone only.
	ToneSNR float64
}

// Analyze measures pcm at SampleRate.
func Analyze(pcm []int16) Levels {
	peak, clipped := Peak(pcm)
	lv := Levels{
		Duration:   time.Duration(len(pcm)) * time.Second / SampleRate,
		RMS:        RMS(pcm),
		Peak:       peak,
		Clipped:    clipped,
		NoiseFloor: NoiseFloor(pcm, SampleRate),
		Dominant:   DominantFrequency(pcm, SampleRate),
	}
	lv.ToneSNR = ToneSNR(pcm, SampleRate, lv.Dominant)
	return lv
}

// DBFS converts a level (fraction of full scale) to decibels relative to
// full scale; silence is -Inf.
func DBFS(level float64) float64 { return 20 * math.Log10(level) }

// RMS is the root mean square of pcm as a fraction of full scale; 0 for
// no samples.
func RMS(pcm []int16) float64 {
	if len(pcm) == 0 {
		return 0
	}
	var sum float64
	for _, s := range pcm {
		v := float64(s)
		sum += v * v
	}
	return math.Sqrt(sum/float64(len(pcm))) / fullScale
}

// Peak returns the largest magnitude as a fraction of full scale and how
// many samples sit at the rails, the usual sign of clipping.
func Peak(pcm []int16) (peak float64, clipped int) {
	m := 0
	for _, s := range pcm {
		v := int(s)
		if v < 0 {
			v = -v
		}
		m = max(m, v)
		if s == math.MaxInt16 || s == math.MinInt16 {
			clipped++
		}
	}
	return float64(m) / fullScale, clipped
}

// NoiseFloor estimates the background level: pcm is cut into 20 ms
// windows and the 10th percentile of their RMS is returned, so speech or a
// tone in the other 90 % does not raise it.
func NoiseFloor(pcm []int16, sampleRate int) float64 {
	w := sampleRate / 50
	if w <= 0 || len(pcm) < w {
		return RMS(pcm)
	}
	levels := make([]float64, 0, len(pcm)/w)
	for off := 0; off+w <= len(pcm); off += w {
		levels = append(levels, RMS(pcm[off:off+w]))
	}
	slices.Sort(levels)
	return levels[len(levels)/10]
}

// Bounds of the dominant-frequency search: below 40 Hz is rumble, and
// voice and test tones sit well under 8 kHz.
const (
	minDominantHz   = 40.0
	maxDominantHz   = 8000.0
	dominantWindow  = 8192 // samples analysed, about 170 ms at 48 kHz
	silenceRMSLimit = 1e-4 // -80 dBFS
)

// DominantFrequency estimates the strongest frequency of pcm in Hz, from
// a Hann-windowed stretch in the middle of the signal, or 0 for silence.
// It needs one peak, not a spectrum, so a Goertzel scan at bin spacing
// followed by a fine search around the best bin does the job in a few
// lines, without an FFT library; accuracy is well under 1 Hz for a
// steady tone.
func DominantFrequency(pcm []int16, sampleRate int) float64 {
	if sampleRate <= 0 || len(pcm) < 64 || RMS(pcm) < silenceRMSLimit {
		return 0
	}
	n := min(len(pcm), dominantWindow)
	start := (len(pcm) - n) / 2
	x := make([]float64, n)
	for i := range x {
		hann := 0.5 - 0.5*math.Cos(2*math.Pi*float64(i)/float64(n-1))
		x[i] = float64(pcm[start+i]) * hann
	}
	fs := float64(sampleRate)
	bin := fs / float64(n)
	hi := min(maxDominantHz, fs/2-bin)
	best, bestP := 0.0, -1.0
	for f := minDominantHz; f <= hi; f += bin / 2 {
		if p := goertzel(x, f/fs); p > bestP {
			best, bestP = f, p
		}
	}
	// Refine within half a bin each side, then fit a parabola through the
	// best point and its neighbours.
	step := bin / 40
	lo := best - bin/2
	fine := make([]float64, 41)
	bi := 0
	for i := range fine {
		fine[i] = goertzel(x, (lo+float64(i)*step)/fs)
		if fine[i] > fine[bi] {
			bi = i
		}
	}
	f := lo + float64(bi)*step
	if bi > 0 && bi < len(fine)-1 {
		a, b, c := fine[bi-1], fine[bi], fine[bi+1]
		if d := a - 2*b + c; d != 0 {
			f += step * 0.5 * (a - c) / d
		}
	}
	return f
}

// goertzel returns the power of x at the normalised frequency f (cycles
// per sample).
func goertzel(x []float64, f float64) float64 {
	coeff := 2 * math.Cos(2*math.Pi*f)
	var s1, s2 float64
	for _, v := range x {
		s0 := v + coeff*s1 - s2
		s2, s1 = s1, s0
	}
	return s1*s1 + s2*s2 - coeff*s1*s2
}
