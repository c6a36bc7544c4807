package jpeg

// Chroma resolution of the output. A source with full vertical chroma
// (4:2:2: most cameras' YUYV, many photos) used to keep it always, which
// bench/photo.sh measured up to 0.9 dB (RGB PSNR) better where the budget
// allows a high quality; where it does not, the chroma rows take bytes
// the luma needs: on Dune (quality ~35) and Blinds (~76) 4:2:0 scored
// higher luma SSIM (+0.008, +0.002), lower butteraugli and equal PSNR,
// while Storm (~91) lost 0.9 dB and butteraugli with 4:2:0. So such
// sources are estimated in 4:2:0 (cheaper too: a quarter fewer samples
// to code) and get their 4:2:2 back only when that estimate reaches
// keepChromaQuality.
const keepChromaQuality = 85

// firstSampling is the subsampling encodeFrame starts with for a source
// that wants out.
func firstSampling(out sampling) sampling {
	if out == s422 {
		return s420
	}
	return out
}

// withChroma returns small (a 4:2:0 encoder frame of f) with its chroma
// resampled from f at s instead; the luma plane is shared, its 16-row
// padding serving any vertical factor. Rotated sources are resampled
// whole.
func withChroma(f, small *frame, orientation int, s sampling) *frame {
	if orientation > 1 || small.n != 3 {
		return resample(f, small.w, small.h, orientation, s)
	}
	out := newEncodeFrame(small.w, small.h, small.n, s)
	out.p[0] = small.p[0]
	for c := 1; c < 3; c++ {
		resizeChroma(&out.p[c], f.p[c], f.p[0])
	}
	out.replicateEdges()
	return out
}
