package audio

import (
	"math"
	"math/cmplx"
)

// The delay estimator finds the lag at which the microphone best matches
// the reference: a cross-correlation over the last second, on
// both signals decimated to 4 kHz (box-averaged, which is low-pass enough
// for speech whose energy lies below 2 kHz, and cuts the work 144-fold).
// libspeexdsp has no delay estimation of its own; a canceller whose
// filter misses the echo's delay cancels nothing.

const (
	delayDecim  = 12                                              // 48 kHz -> 4 kHz
	delayWindow = SampleRate / 12                                 // one second at 4 kHz
	delayEvery  = delayWindow / 2                                 // estimate every half second
	delayAgree  = 2 * SampleRate / 1000 / delayDecim * delayDecim // 2 ms, in 48 kHz samples
	// minCorrelation is the normalised peak below which the echo is too
	// weak against the room's noise or near-end speech to be located.
	minCorrelation = 0.25
	// minFarPower is the mean square (of 16-bit samples, decimated)
	// below which the reference is too quiet to locate anything: about
	// -60 dBFS.
	minFarPower = 1.0
)

type delayEstimator struct {
	maxLag int       // in decimated samples
	near   []float32 // ring of delayWindow decimated microphone samples
	n      int       // decimated samples pushed
	since  int       // since the last estimate
	last   int       // previous estimate (48 kHz samples), -1 none
	accN   int
	acc    float32
	far    []int16 // scratch: the reference span of an estimate
	x, y   []float64
	fx, fy []complex128
}

// newDelayEstimator looks for lags of up to maxLag samples (48 kHz).
func newDelayEstimator(maxLag int) *delayEstimator {
	m := maxLag/delayDecim + 1
	return &delayEstimator{
		maxLag: m,
		near:   make([]float32, delayWindow),
		last:   -1,
		far:    make([]int16, (delayWindow+m)*delayDecim),
		x:      make([]float64, delayWindow),
		y:      make([]float64, delayWindow+m),
	}
}

// span is how many reference samples (48 kHz) an estimate needs: those
// that end at the microphone's "now".
func (e *delayEstimator) span() int { return len(e.far) }

// add takes one frame of microphone samples and reports whether an
// estimate is due.
func (e *delayEstimator) add(near []int16) bool {
	for _, v := range near {
		e.acc += float32(v)
		e.accN++
		if e.accN < delayDecim {
			continue
		}
		e.near[e.n%len(e.near)] = e.acc / delayDecim
		e.acc, e.accN = 0, 0
		e.n++
		e.since++
	}
	if e.n < len(e.near) || e.since < delayEvery || e.accN != 0 {
		return false
	}
	e.since = 0
	return true
}

// estimate correlates the last second of the microphone with far (span
// samples of the reference ending at the same "now") at every lag; when
// the result agrees with the previous estimate it returns the delay in
// 48 kHz samples.
func (e *delayEstimator) estimate(far []int16) (int, bool) {
	nn := len(e.x)
	for t := range e.x {
		e.x[t] = float64(e.near[(e.n-nn+t)%nn])
	}
	for t := range e.y {
		var a float64
		for _, v := range far[t*delayDecim : (t+1)*delayDecim] {
			a += float64(v)
		}
		e.y[t] = a / delayDecim
	}
	d, ok := e.correlate()
	if !ok {
		return 0, false
	}
	agreed := e.last >= 0 && abs(d-e.last) <= delayAgree
	e.last = d
	return d, agreed
}

// correlate finds the lag k at which x[t] best matches y[t+maxLag-k]:
// the generalised cross-correlation with phase transform (GCC-PHAT,
// Knapp and Carter 1976), whose whitening keeps a voice's pitch and
// formants from making the neighbours of the true delay look alike. The
// plain normalised correlation at the chosen lag then says whether the
// echo stands out of the room's noise and the near-end talker at all.
func (e *delayEstimator) correlate() (int, bool) {
	x, y := e.x, e.y
	nn := len(x)
	var ex, ey float64
	for _, v := range x {
		ex += v * v
	}
	for _, v := range y[e.maxLag:] {
		ey += v * v
	}
	if ex/float64(nn) < minFarPower || ey/float64(nn) < minFarPower {
		return 0, false
	}
	n := 1
	for n < len(x)+len(y) {
		n <<= 1
	}
	if len(e.fx) != n {
		e.fx, e.fy = make([]complex128, n), make([]complex128, n)
	}
	for i := range e.fx {
		e.fx[i], e.fy[i] = 0, 0
	}
	for i, v := range x {
		e.fx[i] = complex(v, 0)
	}
	for i, v := range y {
		e.fy[i] = complex(v, 0)
	}
	fft(e.fx, false)
	fft(e.fy, false)
	for i := range e.fx {
		g := cmplx.Conj(e.fx[i]) * e.fy[i]
		e.fx[i] = g / complex(cmplx.Abs(g)+1e-9, 0)
	}
	fft(e.fx, true) // r[tau] = sum_t x[t] y[t+tau], tau = maxLag-k
	best, bestK := math.Inf(-1), -1
	for k := 0; k <= e.maxLag; k++ {
		if r := real(e.fx[e.maxLag-k]); r > best {
			best, bestK = r, k
		}
	}
	off := e.maxLag - bestK
	var c, ew float64
	for t, v := range x {
		w := y[t+off]
		c += v * w
		ew += w * w
	}
	if ew <= 0 || c/math.Sqrt(ex*ew) < minCorrelation {
		return 0, false
	}
	return bestK * delayDecim, true
}

// fft transforms a in place (radix 2, len(a) a power of two); inverse
// includes the 1/n.
func fft(a []complex128, inverse bool) {
	n := len(a)
	for i, j := 1, 0; i < n; i++ {
		bit := n >> 1
		for ; j&bit != 0; bit >>= 1 {
			j ^= bit
		}
		j ^= bit
		if i < j {
			a[i], a[j] = a[j], a[i]
		}
	}
	sign := -1.0
	if inverse {
		sign = 1
	}
	for size := 2; size <= n; size <<= 1 {
		w := cmplx.Rect(1, sign*2*math.Pi/float64(size))
		for start := 0; start < n; start += size {
			wk := complex(1, 0)
			for k := 0; k < size/2; k++ {
				u, v := a[start+k], a[start+k+size/2]*wk
				a[start+k], a[start+k+size/2] = u+v, u-v
				wk *= w
			}
		}
	}
	if inverse {
		for i := range a {
			a[i] /= complex(float64(n), 0)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
