package audio_test

import (
	"math"
	"testing"

	"github.com/agentcall/acbridge/audio"
)

func sine(hz, amp float64, n int) []int16 {
	pcm := make([]int16, n)
	for i := range pcm {
		pcm[i] = int16(math.Round(amp * 32767 * math.Sin(2*math.Pi*hz*float64(i)/audio.SampleRate)))
	}
	return pcm
}

func TestLevels(t *testing.T) {
	if audio.RMS(nil) != 0 || audio.DominantFrequency(nil, audio.SampleRate) != 0 {
		t.Error("empty input")
	}
	if r := audio.RMS(sine(1000, 1, 48000)); math.Abs(r-1/math.Sqrt2) > 0.001 {
		t.Errorf("RMS of a full-scale sine %.4f, want 0.7071", r)
	}
	if d := audio.DBFS(0.5); math.Abs(d+6.02) > 0.01 {
		t.Errorf("DBFS(0.5) = %.3f", d)
	}
	peak, clipped := audio.Peak([]int16{0, 100, -32768, 32767, 32767, -5})
	if peak != 1 || clipped != 3 {
		t.Errorf("peak %.3f clipped %d", peak, clipped)
	}
	// 900 ms of quiet hiss and 100 ms of loud tone: the floor is the hiss.
	pcm := append(sine(3000, 0.001, 43200), sine(500, 0.5, 4800)...)
	if nf := audio.DBFS(audio.NoiseFloor(pcm, audio.SampleRate)); math.Abs(nf-(-63)) > 1 {
		t.Errorf("noise floor %.1f dBFS, want about -63", nf)
	}
}

func TestDominantFrequency(t *testing.T) {
	for _, hz := range []float64{60, 123.4, 440, 480, 1000, 3333, 7000} {
		got := audio.DominantFrequency(sine(hz, 0.3, 9600), audio.SampleRate)
		if math.Abs(got-hz) > 0.5 {
			t.Errorf("%.1f Hz tone: estimated %.2f Hz", hz, got)
		}
	}
	// A louder tone wins over a quieter one.
	a, b := sine(700, 0.4, 9600), sine(1900, 0.2, 9600)
	for i := range a {
		a[i] += b[i]
	}
	if got := audio.DominantFrequency(a, audio.SampleRate); math.Abs(got-700) > 0.5 {
		t.Errorf("mix: %.2f Hz, want 700", got)
	}
	if got := audio.DominantFrequency(make([]int16, 9600), audio.SampleRate); got != 0 {
		t.Errorf("silence: %.2f Hz", got)
	}
}
