package audio

import (
	"math"
	"time"
)

// Measuring echo cancellation: the benchmark, the tests and the
// acceptance check use the same definitions.

// ERLETarget is what an open microphone needs (ITU-T G.168 asks for
// more of network echo cancellers; 25 dB keeps an agent from hearing
// itself over a kiosk's speaker).
const ERLETarget = 25.0

// echoFloor is the level (dBFS) below which a window of microphone
// audio does not count: ERLE is not defined on silence, and on a faint
// echo what is left is bounded by the room's noise, not the canceller.
const echoFloor = -45.0

// CancelEcho runs far (what the speaker played) and mic (what the
// microphone recorded, in step with far) through p as a kiosk would,
// one 10 ms frame of each at a time, and returns the cleaned
// microphone. A tail shorter than a frame is dropped.
func CancelEcho(p *Processor, far, mic []int16) ([]int16, error) {
	n := min(len(far), len(mic)) / EchoFrame * EchoFrame
	out := make([]int16, n)
	copy(out, mic[:n])
	for at := 0; at < n; at += EchoFrame {
		p.Far(far[at : at+EchoFrame])
		if err := p.Process(out[at : at+EchoFrame]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ERLE is the echo return loss enhancement in dB between mic and out
// over samples [from, to): the power the microphone picked up over the
// power left, counting only windows of 10 ms whose microphone level is
// above the floor.
func ERLE(mic, out []int16, from, to int) float64 {
	var pm, po float64
	for at := from; at+EchoFrame <= to && at+EchoFrame <= len(out); at += EchoFrame {
		m := Power(mic[at : at+EchoFrame])
		if PowerDB(m) < echoFloor {
			continue
		}
		pm += m
		po += Power(out[at : at+EchoFrame])
	}
	if pm == 0 {
		return 0
	}
	return 10 * math.Log10(pm/math.Max(po, 1e-3))
}

// Convergence is how long after from the ERLE of every later window
// (250 ms) with echo in it stays at or above target, up to to; false
// when it never does.
func Convergence(mic, out []int16, from, to int, target float64) (time.Duration, bool) {
	win := samplesOf(250 * time.Millisecond)
	last := -1 // start of the last window below target
	seen := false
	for at := from; at+win <= to && at+win <= len(out); at += win {
		m := Power(mic[at : at+win])
		if PowerDB(m) < echoFloor {
			continue
		}
		seen = true
		if ERLE(mic, out, at, at+win) < target {
			last = at
		}
	}
	if !seen || last+win >= to-win {
		return 0, false
	}
	start := from
	if last >= 0 {
		start = last + win
	}
	return time.Duration(start-from) * time.Second / SampleRate, true
}

// LevelDB is the power of x over [from, to) in dBFS.
func LevelDB(x []int16, from, to int) float64 {
	to = min(to, len(x))
	if to <= from {
		return math.Inf(-1)
	}
	return PowerDB(Power(x[from:to]))
}

// Power is the mean square of x (of 16-bit samples).
func Power(x []int16) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return s / float64(max(len(x), 1))
}

// PowerDB is a mean square in dBFS (full scale is 0 dB).
func PowerDB(p float64) float64 {
	return 10 * math.Log10(math.Max(p, 1e-9)/(math.MaxInt16*math.MaxInt16))
}
