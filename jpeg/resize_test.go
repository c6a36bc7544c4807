package jpeg

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Both passes together stay within rounding of the same filter computed in
// float64: the intermediate between the passes keeps fraction bits, so the
// only error left is the final rounding (RMS 1/sqrt(12) ≈ 0.29 levels; an
// 8-bit intermediate measured about 0.36).
func TestResizeTwoPassPrecision(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const sw, sh, dw, dh = 600, 400, 331, 223
	src := plane{w: sw, h: sh, stride: sw, pix: make([]byte, sw*sh)}
	for y := 0; y < sh; y++ {
		for x := 0; x < sw; x++ {
			v := 128 + 60*math.Sin(float64(x)/23)*math.Cos(float64(y)/31) + 20*rng.NormFloat64()
			src.pix[y*sw+x] = uint8(min(max(math.Round(v), 0), 255))
		}
	}
	out := resizePlane(src, dw, dh, halved{})
	kv, kh := makeKernel(sh, dh, 0), makeKernel(sw, dw, 0)
	tmp := make([]float64, sw*dh)
	for y := 0; y < dh; y++ {
		for x := 0; x < sw; x++ {
			var s float64
			for j := 0; j < kv.n; j++ {
				s += float64(kv.w[y*kv.n+j]) / weightOne * float64(src.pix[(int(kv.start[y])+j)*sw+x])
			}
			tmp[y*sw+x] = min(max(s, 0), 255)
		}
	}
	var sq, worst float64
	for y := 0; y < dh; y++ {
		for x := 0; x < dw; x++ {
			var s float64
			for j := 0; j < kh.n; j++ {
				s += float64(kh.w[x*kh.n+j]) / weightOne * tmp[y*sw+int(kh.start[x])+j]
			}
			d := float64(out.pix[y*dw+x]) - min(max(s, 0), 255)
			sq += d * d
			worst = max(worst, math.Abs(d))
		}
	}
	rms := math.Sqrt(sq / (dw * dh))
	if rms > 0.32 || worst > 0.75 {
		t.Errorf("against float64: RMS %.3f, worst %.3f levels", rms, worst)
	}
}

// A chroma axis stored at half the luma's resolution resamples as the
// picture decoders show: libjpeg's fancy upsampling (linear, 3/4 and 1/4)
// to the luma's size, then the Lanczos filter. The reference here does
// exactly that in float64; filtering the stored samples directly (the old
// way) misses it by several levels on a noisy plane, which the test also
// checks so that it can fail.
func TestResizeHalvedChromaIsFancyUpsampling(t *testing.T) {
	cases := []struct {
		name         string
		lw, lh       int // luma
		cw, ch       int // stored chroma
		dw, dh       int // output chroma
		halvW, halvH bool
	}{
		{"4:2:2 odd width, reduced", 1001, 601, 501, 601, 256, 300, true, false},
		{"4:2:0 reduced", 1001, 601, 501, 301, 256, 150, true, true},
		{"4:2:0 to full size (toImage)", 99, 75, 50, 38, 99, 75, true, true},
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for _, c := range cases {
		src := plane{w: c.cw, h: c.ch, stride: c.cw, pix: make([]byte, c.cw*c.ch)}
		for i := range src.pix {
			// Noise kept off the ends, so that no filter overshoot is
			// clamped (the pass order would then matter).
			src.pix[i] = byte(64 + rng.IntN(128))
		}
		var hv halved
		if c.halvW {
			hv.w = c.lw
		}
		if c.halvH {
			hv.h = c.lh
		}
		got := resizePlane(src, c.dw, c.dh, hv)

		// Reference: fancy upsampling in float64, then the plain kernels.
		fw, fh := c.cw, c.ch
		if c.halvW {
			fw = c.lw
		}
		if c.halvH {
			fh = c.lh
		}
		at := func(x, y int) float64 { return float64(src.pix[y*c.cw+x]) }
		up := func(i, n int, halv bool) (near, far int, wn float64) {
			if !halv {
				return i, i, 1
			}
			near, far = i/2, i/2-1
			if i%2 == 1 {
				far = i/2 + 1
			}
			return near, min(max(far, 0), n-1), 0.75
		}
		full := make([]float64, fw*fh)
		for y := 0; y < fh; y++ {
			yn, yf, wy := up(y, c.ch, c.halvH)
			for x := 0; x < fw; x++ {
				xn, xf, wx := up(x, c.cw, c.halvW)
				full[y*fw+x] = wy*(wx*at(xn, yn)+(1-wx)*at(xf, yn)) + (1-wy)*(wx*at(xn, yf)+(1-wx)*at(xf, yf))
			}
		}
		kv, kh := makeKernel(fh, c.dh, 0), makeKernel(fw, c.dw, 0)
		tmp := make([]float64, fw*c.dh)
		for y := 0; y < c.dh; y++ {
			for x := 0; x < fw; x++ {
				var s float64
				for j := 0; j < kv.n; j++ {
					s += float64(kv.w[y*kv.n+j]) / weightOne * full[(int(kv.start[y])+j)*fw+x]
				}
				tmp[y*fw+x] = min(max(s, 0), 255) // as the 16-bit intermediate
			}
		}
		old := resizePlane(src, c.dw, c.dh, halved{})
		var sq, sqOld, worst float64
		for y := 0; y < c.dh; y++ {
			for x := 0; x < c.dw; x++ {
				var s float64
				for j := 0; j < kh.n; j++ {
					s += float64(kh.w[x*kh.n+j]) / weightOne * tmp[y*fw+int(kh.start[x])+j]
				}
				s = min(max(s, 0), 255)
				d := float64(got.pix[y*c.dw+x]) - s
				sq += d * d
				worst = max(worst, math.Abs(d))
				d = float64(old.pix[y*c.dw+x]) - s
				sqOld += d * d
			}
		}
		n := float64(c.dw * c.dh)
		rms, rmsOld := math.Sqrt(sq/n), math.Sqrt(sqOld/n)
		if rms > 0.32 || worst > 0.75 {
			t.Errorf("%s: against fancy upsampling + Lanczos: RMS %.3f, worst %.3f levels", c.name, rms, worst)
		}
		if rmsOld < 2 {
			t.Errorf("%s: filtering the stored samples is only %.3f levels RMS off: the test cannot tell", c.name, rmsOld)
		}
		t.Logf("%s: RMS %.3f worst %.3f (stored samples filtered directly: RMS %.3f)", c.name, rms, worst, rmsOld)
	}
}

// Which sources get the decoders' picture (halvedOf): 4:2:2 only, where it
// measured better; 4:2:0, 4:4:4 and libjpeg's scaled odd sizes keep the
// plain filter.
func TestHalvedOnlyFor422(t *testing.T) {
	luma := plane{w: 1001, h: 601}
	for _, c := range []struct {
		cw, ch int
		want   halved
	}{
		{501, 601, halved{w: 1001}}, // 4:2:2, odd width
		{501, 301, halved{}},        // 4:2:0
		{1001, 601, halved{}},       // 4:4:4
		{500, 601, halved{}},        // not half of the luma
	} {
		if got := halvedOf(plane{w: c.cw, h: c.ch}, luma); got != c.want {
			t.Errorf("chroma %dx%d of luma %dx%d: %+v, want %+v", c.cw, c.ch, luma.w, luma.h, got, c.want)
		}
	}
}
