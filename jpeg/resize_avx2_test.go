package jpeg

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The AVX2 loops must give the portable loops' bytes exactly, on every
// path resizeInto takes (both passes, rows only, columns only) and on
// shapes their blocks do not divide: tiny planes, odd widths, kernels
// clamped to the plane, strides wider than the plane.
func TestResizeAVX2MatchesPortable(t *testing.T) {
	if !haveAVX2() {
		t.Skip("no AVX2 loops on this machine: the portable loops are the only ones")
	}
	rng := rand.New(rand.NewPCG(20, 1))
	type shape struct{ sw, sh, dw, dh int }
	shapes := []shape{
		{4056, 3040, 1024, 768}, // a 12 MP camera still, ratio ~4
		{1920, 1280, 1024, 683}, // Storm's luma
		{960, 640, 512, 342},    // and its chroma
		{1920, 1080, 1024, 576},
		{640, 480, 1024, 768}, // upscale: 8-tap kernels
		{33, 33, 32, 31},
		{31, 200, 17, 100}, // narrower than a vertical block
		{100, 7, 9, 3},     // kernels clamped to the plane
		{5, 3, 2, 1},
		{1, 1, 1, 2},
		{300, 200, 300, 77},  // columns only
		{300, 200, 123, 200}, // rows only
		{64, 64, 1, 1},
		{1000, 300, 40, 2}, // kernels longer than the AVX2 vertical loop takes
	}
	for i := 0; i < 60; i++ {
		sw, sh := 1+rng.IntN(20), 1+rng.IntN(20)
		shapes = append(shapes, shape{sw, sh, 1 + rng.IntN(24), 1 + rng.IntN(24)})
	}
	for i := 0; i < 40; i++ {
		sw, sh := 20+rng.IntN(700), 20+rng.IntN(500)
		shapes = append(shapes, shape{sw, sh, 1 + rng.IntN(2*sw), 1 + rng.IntN(2*sh)})
	}
	for _, s := range shapes {
		src := randomPlane(rng, s.sw, s.sh, s.sw+rng.IntN(3)*7)
		stride := s.dw + rng.IntN(2)*5
		want := plane{w: s.dw, h: s.dh, stride: stride, pix: make([]byte, stride*s.dh)}
		got := plane{w: s.dw, h: s.dh, stride: stride, pix: make([]byte, stride*s.dh)}
		resizeIntoWith(&want, src, halved{}, loopsPortable)
		resizeIntoWith(&got, src, halved{}, loopsAVX2)
		if i := firstDiff(want.pix, got.pix); i >= 0 {
			t.Errorf("%dx%d -> %dx%d: AVX2 byte %d (x %d, y %d) is %d, portable %d",
				s.sw, s.sh, s.dw, s.dh, i, i%stride, i/stride, got.pix[i], want.pix[i])
		}
	}
}

// Each pass on kernels makeKernel does not make: random weights of both
// signs, any tap count, zero taps anywhere, sums that overshoot so the
// clamps act, long kernels with few live taps.
func TestResizeAVX2MatchesPortableKernels(t *testing.T) {
	if !haveAVX2() {
		t.Skip("no AVX2 loops on this machine: the portable loops are the only ones")
	}
	rng := rand.New(rand.NewPCG(20, 2))
	for i := 0; i < 300; i++ {
		n := 1 + rng.IntN(40)
		switch i % 4 {
		case 0, 1:
			n = 8 * (1 + rng.IntN(5)) // the shapes the AVX2 horizontal loops take
		case 2:
			if i%8 == 2 {
				n = 120 + rng.IntN(80) // past the vertical loops' tap limit, or not once trimmed
			}
		}
		live := n
		if rng.IntN(2) == 0 {
			live = 1 + rng.IntN(n)
		}
		sw, sh := n+rng.IntN(90), n+rng.IntN(40)
		dw, dh := 1+rng.IntN(70), 1+rng.IntN(12)
		src := randomPlane(rng, sw, sh, sw)
		kv, kh := randomKernel(rng, sh, dh, n, live), randomKernel(rng, sw, dw, n, live)
		name := fmt.Sprintf("case %d: %dx%d -> %dx%d, %d taps", i, sw, sh, dw, dh, n)

		// Vertical, 16-bit out.
		acc := make([]int32, sw)
		want16, got16 := make([]int16, sw*dh), make([]int16, sw*dh)
		resizeV16(want16, src, 0, dh, kv, acc, loopsPortable)
		resizeV16(got16, src, 0, dh, kv, acc, loopsAVX2)
		if !slices.Equal(want16, got16) {
			t.Fatalf("%s: acb_resize_v16 differs", name)
		}
		// Vertical, bytes out.
		want := plane{w: sw, h: dh, stride: sw, pix: make([]byte, sw*dh)}
		got := plane{w: sw, h: dh, stride: sw, pix: make([]byte, sw*dh)}
		resizeV(want, src, kv, loopsPortable)
		resizeV(got, src, kv, loopsAVX2)
		if !bytes.Equal(want.pix, got.pix) {
			t.Fatalf("%s: acb_resize_v differs", name)
		}
		// Horizontal from 16-bit samples in acb_resize_v16's range.
		tmp := make([]int16, sw*sh)
		for j := range tmp {
			tmp[j] = int16(rng.IntN(255<<6 + 1))
		}
		want = plane{w: dw, h: sh, stride: dw, pix: make([]byte, dw*sh)}
		got = plane{w: dw, h: sh, stride: dw, pix: make([]byte, dw*sh)}
		resizeH16(want, tmp, sw, kh, loopsPortable)
		resizeH16(got, tmp, sw, kh, loopsAVX2)
		if !bytes.Equal(want.pix, got.pix) {
			t.Fatalf("%s: acb_resize_h16 differs", name)
		}
		// Horizontal from bytes.
		resizeH(want, src, kh, loopsPortable)
		resizeH(got, src, kh, loopsAVX2)
		if !bytes.Equal(want.pix, got.pix) {
			t.Fatalf("%s: acb_resize_h differs", name)
		}
	}
}

// randomPlane is noise with runs of black and white, so that filtered
// sums overshoot both ends and the clamps are exercised.
func randomPlane(rng *rand.Rand, w, h, stride int) plane {
	p := plane{w: w, h: h, stride: stride, pix: make([]byte, stride*h)}
	for i := range p.pix {
		switch rng.IntN(8) {
		case 0:
			p.pix[i] = 0
		case 1:
			p.pix[i] = 255
		default:
			p.pix[i] = byte(rng.IntN(256))
		}
	}
	return p
}

// randomKernel maps src samples onto dst with n taps each, inside the
// plane as makeKernel guarantees; weights are nonzero only in a window of
// live taps (some zero there too). The absolute weights sum to at most
// 2^15, so no int32 sum of the loops can wrap.
func randomKernel(rng *rand.Rand, src, dst, n, live int) kernel {
	k := kernel{n: n, start: make([]int32, dst), w: make([]int32, dst*n), w16: make([]int16, dst*n)}
	limit := min(1<<14, 1<<16/live)
	for i := 0; i < dst; i++ {
		k.start[i] = int32(rng.IntN(src - n + 1))
		ws := k.w[i*n : (i+1)*n]
		off := rng.IntN(n - live + 1)
		budget := 1 << 15
		for j := off; j < off+live; j++ {
			if rng.IntN(4) == 0 {
				continue
			}
			v := min(rng.IntN(limit+1), budget)
			budget -= v
			if rng.IntN(3) == 0 {
				v = -v
			}
			ws[j] = int32(v)
		}
		for j, v := range ws {
			k.w16[i*n+j] = int16(v)
		}
	}
	return k
}

func firstDiff(a, b []byte) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}
