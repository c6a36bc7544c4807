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
	out := resizePlane(src, dw, dh)
	kv, kh := makeKernel(sh, dh), makeKernel(sw, dw)
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
