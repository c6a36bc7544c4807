package jpeg

import (
	"math"
	"sync"
	"unsafe"
)

// The resampler is written by hand: golang.org/x/image/draw scales through
// RGBA in float64 and has no planar Y'CbCr-to-Y'CbCr path, so it would
// convert every plane twice; this one filters each 8-bit plane separately
// with fixed-point Lanczos-3 weights (the filter ImageMagick's -resize uses
// for downscaling), which is several times faster (BenchmarkResize).

// #cgo CFLAGS: -O3
// #include "resize.h"
import "C"

const (
	lanczosLobes = 3
	weightBits   = 14
	weightOne    = 1 << weightBits
)

// kernel holds, per output sample, the first source index and n weights.
type kernel struct {
	n     int
	start []int32
	w     []int32
	w16   []int16 // the same weights, for the 16-bit loops
}

func lanczosExact(x float64) float64 {
	if x < 1e-9 {
		return 1
	}
	px := math.Pi * x
	return lanczosLobes * math.Sin(px) * math.Sin(px/lanczosLobes) / (px * px)
}

// lanczosTable samples the filter every 1/1024 px: interpolating it is
// exact to 1e-6, far below the 14-bit weights, and saves the sines.
var lanczosTable = func() []float64 {
	t := make([]float64, lanczosLobes*1024+2)
	for i := range t {
		t[i] = lanczosExact(float64(i) / 1024)
	}
	t[len(t)-1], t[len(t)-2] = 0, 0
	return t
}()

func lanczos(x float64) float64 {
	if x < 0 {
		x = -x
	}
	if x >= lanczosLobes {
		return 0
	}
	f := x * 1024
	i := int(f)
	frac := f - float64(i)
	return lanczosTable[i]*(1-frac) + lanczosTable[i+1]*frac
}

// makeKernel maps src samples onto dst samples, pixel centres aligned, with
// the filter widened by the reduction ratio. Taps falling outside the plane
// are dropped and the rest renormalised, as ImageMagick does, so edges keep
// their brightness.
//
// With full > 0, src is a chroma axis stored at half the luma's
// resolution (full samples, src == (full+1)/2), and the kernel resamples
// the picture a decoder shows for it instead: libjpeg's "fancy"
// upsampling (the default in libjpeg-turbo, so in ImageMagick, browsers
// and most viewers) interpolates such chroma linearly to full resolution,
// 3/4 of the nearer sample and 1/4 of the next, the end samples repeated,
// keeping the first full. The triangle is folded into the Lanczos weights,
// so it costs a tap or two, not a pass. Filtering the stored samples
// directly reconstructs sharper chroma than any viewer of the source sees
// (halvedOf says where that matters).
func makeKernel(src, dst, full int) kernel {
	halved := full > 0
	vsrc := src // the axis the Lanczos filter runs over
	if halved {
		vsrc = full
	}
	scale := float64(vsrc) / float64(dst)
	support := float64(lanczosLobes)
	filterScale := 1.0
	if scale > 1 {
		support *= scale
		filterScale = scale
	}
	n := int(math.Ceil(2*support)) + 1
	if halved {
		n = n/2 + 3 // virtual taps pair up; the triangle adds one each side
	}
	n = roundUp(n, 8) // zero taps let the C loops vectorize
	if n > src {
		n = src
	}
	k := kernel{n: n, start: make([]int32, dst), w: make([]int32, dst*n)}
	fw := make([]float64, src) // weight per source sample, zero outside [lo, hi]
	for i := 0; i < dst; i++ {
		center := (float64(i)+0.5)*scale - 0.5
		vlo := max(int(math.Floor(center-support+1)), 0)
		vhi := min(int(math.Ceil(center+support-1)), vsrc-1)
		lo, hi := src, -1
		add := func(s int, v float64) {
			fw[s] += v
			lo, hi = min(lo, s), max(hi, s)
		}
		for s := vlo; s <= vhi; s++ {
			v := lanczos((float64(s) - center) / filterScale)
			if !halved {
				add(s, v)
				continue
			}
			near, far := s/2, s/2-1 // even virtual sample: 3/4 own, 1/4 left
			if s%2 == 1 {
				far = s/2 + 1
			}
			add(near, 0.75*v)
			add(min(max(far, 0), src-1), 0.25*v)
		}
		if hi-lo+1 > n { // cannot happen (n covers the window); stay in bounds
			for s := lo + n; s <= hi; s++ {
				fw[s] = 0
			}
			hi = lo + n - 1
		}
		var sum float64
		for s := lo; s <= hi; s++ {
			sum += fw[s]
		}
		if sum == 0 { // cannot happen for a non-empty window, but never divide by zero
			fw[lo], sum = 1, 1
		}
		k.start[i] = int32(lo)
		ws := k.w[i*n : (i+1)*n]
		var isum int32
		big := 0
		for j := range ws {
			if lo+j <= hi {
				ws[j] = int32(math.Round(fw[lo+j] / sum * weightOne))
				fw[lo+j] = 0
			}
			isum += ws[j]
			if ws[j] > ws[big] {
				big = j
			}
		}
		ws[big] += weightOne - isum // exact unity gain: flat areas stay flat
		// Shift the window back so start+n stays inside the plane (n <= src
		// guarantees room), letting the inner loops slice without checks.
		if shift := int(k.start[i]) + n - src; shift > 0 {
			copy(ws[shift:], ws[:n-shift])
			for j := 0; j < shift; j++ {
				ws[j] = 0
			}
			k.start[i] -= int32(shift)
		}
	}
	k.w16 = make([]int16, len(k.w))
	for i, v := range k.w {
		k.w16[i] = int16(v) // |v| <= 1<<14 + rounding: fits
	}
	return k
}

// resizePlane returns src, stored halved along hv's axes (halvedOf; zero
// for luma), resampled to w x h in a new unpadded plane.
func resizePlane(src plane, w, h int, hv halved) plane {
	dst := plane{w: w, h: h, stride: w, pix: make([]byte, w*h)}
	resizeIntoWith(&dst, src, hv, loopsBest)
	return dst
}

// resizeInto resamples src onto dst (dst.w x dst.h, dst.stride): columns
// first, then rows, so the larger pass is the one gcc vectorizes.
func resizeInto(dst *plane, src plane) {
	resizeIntoWith(dst, src, halved{}, loopsBest)
}

// halved gives, for each axis of a chroma plane stored at half the luma's
// resolution, the luma's length (makeKernel's full); 0 for the others.
type halved struct{ w, h int }

// halvedOf compares chroma plane c with its picture's luma plane and
// reports the 4:2:2 case (half width, full height: most cameras' YUYV,
// many photos) only. That is where resampling the decoders' picture
// measured better (bench/photo.sh, butteraugli: Storm 1.49 to 1.41, Dune
// 3.88 to 3.79, Blinds 1.82 to 1.83, Wood and Elephants equal). On 4:2:0
// sources, fancy upsampling on both axes or on the rows alone measured
// mixed (FreshFlower 1.91 to 1.84, TwoWings 1.75 to 2.17 as its quality
// search landed a step lower, the raw camera frames 2.12 to 2.36, whose
// reference is not libjpeg's picture anyway), so they keep the plain
// filter.
func halvedOf(c, luma plane) halved {
	if c.h == luma.h && c.w < luma.w && c.w == (luma.w+1)/2 {
		return halved{w: luma.w}
	}
	return halved{}
}

// resizeChroma is resizeInto for a chroma plane of the picture whose luma
// plane is luma: halved axes are resampled as decoders show them.
func resizeChroma(dst *plane, src, luma plane) {
	resizeIntoWith(dst, src, halvedOf(src, luma), loopsBest)
}

// loops picks the C loops of a resample (resize.h's ACB_IMPL_*); all give
// the same bytes, which tests check by running each.
type loops C.int

const (
	loopsBest     loops = C.ACB_IMPL_BEST
	loopsPortable loops = C.ACB_IMPL_PORTABLE
	loopsAVX2     loops = C.ACB_IMPL_AVX2
)

// haveAVX2 reports whether loopsAVX2 runs the AVX2 loops on this machine.
func haveAVX2() bool { return C.acb_resize_has_avx2() != 0 }

// resizeIntoWith is resizeInto running the given loops, for a plane
// stored halved along hv's axes.
func resizeIntoWith(dst *plane, src plane, hv halved, impl loops) {
	if src.w == dst.w && src.h == dst.h {
		for y := 0; y < dst.h; y++ {
			copy(dst.pix[y*dst.stride:y*dst.stride+dst.w], src.pix[y*src.stride:y*src.stride+src.w])
		}
		return
	}
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	switch {
	case src.h == dst.h:
		resizeH(*dst, src, sc.kernel(src.w, dst.w, hv.w), impl)
	case src.w == dst.w:
		resizeV(*dst, src, sc.kernel(src.h, dst.h, hv.h), impl)
	default:
		// Both passes, a strip of output rows at a time: the intermediate
		// (which keeps fraction bits, resize.h) stays in the L2 cache and
		// is never a whole plane of fresh pages.
		kv, kh := sc.kernel(src.h, dst.h, hv.h), sc.kernel(src.w, dst.w, hv.w)
		n := src.w * min(stripRows, dst.h)
		if cap(sc.tmp) < n {
			sc.tmp = make([]int16, n)
		}
		if cap(sc.acc) < src.w {
			sc.acc = make([]int32, src.w)
		}
		for y := 0; y < dst.h; y += stripRows {
			rows := min(stripRows, dst.h-y)
			resizeV16(sc.tmp[:n], src, y, rows, kv, sc.acc[:src.w], impl)
			strip := plane{w: dst.w, h: rows, stride: dst.stride, pix: dst.pix[y*dst.stride:]}
			resizeH16(strip, sc.tmp[:n], src.w, kh, impl)
		}
	}
}

// stripRows: output rows per strip of the two-pass resample. 32 rows of a
// 4,056 px wide source are 260 KB of intermediate.
const stripRows = 32

// scratch is resizeInto's reusable working memory: the 16-bit intermediate
// plane and the kernels of recent (source, destination) lengths. The
// chroma planes, and a picture's second chroma resample, reuse both: on a
// 2.3 MP wallpaper fresh intermediates cost ~1,000 page faults, and Cb
// computed the same kernels as Cr.
type scratch struct {
	tmp     []int16
	acc     []int32
	kernels map[kernelKey]kernel
}

type kernelKey struct{ src, dst, full int }

// maxKernels bounds the cache; a picture needs at most four lengths.
const maxKernels = 8

var scratchPool = sync.Pool{New: func() any { return &scratch{kernels: make(map[kernelKey]kernel)} }}

func (s *scratch) kernel(src, dst, full int) kernel {
	key := kernelKey{src, dst, full}
	if k, ok := s.kernels[key]; ok {
		return k
	}
	if len(s.kernels) >= maxKernels {
		clear(s.kernels)
	}
	k := makeKernel(src, dst, full)
	s.kernels[key] = k
	return k
}

// resizeV16 fills tmp (src.w x rows, 16-bit with fraction bits) with
// output rows y0.. of kernel k over src's rows; acc holds src.w sums.
func resizeV16(tmp []int16, src plane, y0, rows int, k kernel, acc []int32, impl loops) {
	C.acb_resize_v16(C.int(impl), (*C.uint8_t)(unsafe.Pointer(&src.pix[0])), C.int(src.stride),
		(*C.int16_t)(unsafe.Pointer(&tmp[0])), C.int(src.w), C.int(src.w), C.int(rows),
		(*C.int32_t)(unsafe.Pointer(&k.start[y0])), (*C.int32_t)(unsafe.Pointer(&k.w[y0*k.n])), C.int(k.n),
		(*C.int32_t)(unsafe.Pointer(&acc[0])))
}

// resizeH16 fills dst from tmp (stride tw) with kernel k over columns.
func resizeH16(dst plane, tmp []int16, tw int, k kernel, impl loops) {
	C.acb_resize_h16(C.int(impl), (*C.int16_t)(unsafe.Pointer(&tmp[0])), C.int(tw),
		(*C.uint8_t)(unsafe.Pointer(&dst.pix[0])), C.int(dst.stride), C.int(dst.w), C.int(dst.h),
		(*C.int32_t)(unsafe.Pointer(&k.start[0])), (*C.int16_t)(unsafe.Pointer(&k.w16[0])), C.int(k.n))
}

// resizeV fills dst (src.w x dst.h) from src with kernel k over rows.
func resizeV(dst, src plane, k kernel, impl loops) {
	acc := make([]int32, src.w)
	C.acb_resize_v(C.int(impl), (*C.uint8_t)(unsafe.Pointer(&src.pix[0])), C.int(src.stride),
		(*C.uint8_t)(unsafe.Pointer(&dst.pix[0])), C.int(dst.stride), C.int(src.w), C.int(dst.h),
		(*C.int32_t)(unsafe.Pointer(&k.start[0])), (*C.int32_t)(unsafe.Pointer(&k.w[0])), C.int(k.n),
		(*C.int32_t)(unsafe.Pointer(&acc[0])))
}

// resizeH fills dst (dst.w x src.h) from src with kernel k over columns.
func resizeH(dst, src plane, k kernel, impl loops) {
	C.acb_resize_h(C.int(impl), (*C.uint8_t)(unsafe.Pointer(&src.pix[0])), C.int(src.stride),
		(*C.uint8_t)(unsafe.Pointer(&dst.pix[0])), C.int(dst.stride), C.int(dst.w), C.int(src.h),
		(*C.int32_t)(unsafe.Pointer(&k.start[0])), (*C.int32_t)(unsafe.Pointer(&k.w[0])),
		(*C.int16_t)(unsafe.Pointer(&k.w16[0])), C.int(k.n))
}
