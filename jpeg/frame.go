package jpeg

import (
	"image"
	"image/color"
)

// plane is one 8-bit sample plane. pix may extend past w and h (padding).
type plane struct {
	w, h, stride int
	pix          []byte
}

// frame is a planar Y'CbCr picture (n == 3) or a gray one (n == 1) in JFIF
// full-range BT.601. Chroma planes may have any size: the resampler maps
// every plane onto the same picture area, so 4:2:0, 4:2:2, 4:4:4 and the
// odd sizes libjpeg's scaled decoding produces all work alike.
type frame struct {
	n, w, h int
	hs, vs  int // encoder frames: luma sampling factors (chroma is 1x1)
	p       [3]plane
	// out is the chroma subsampling to encode with: the source's own
	// vertical chroma resolution is kept (a 4:2:2 camera or photo keeps
	// 4:2:2, which measured up to 0.9 dB better on such sources), and
	// horizontal chroma is always halved.
	out sampling
	// free returns planes held outside the Go heap (libjpeg's decode
	// output); nil for Go memory. Call release, once, when done.
	free func()
}

// release frees the frame's C planes, if any; the frame is unusable after.
func (f *frame) release() {
	if f != nil && f.free != nil {
		f.free()
		f.free = nil
		f.p = [3]plane{}
	}
}

// sampling is a chroma subsampling choice for the output.
type sampling struct{ hs, vs int }

var (
	s420 = sampling{2, 2}
	s422 = sampling{2, 1}
	s444 = sampling{1, 1}
)

// newEncodeFrame allocates a w x h frame in the layout the encoder wants:
// chroma subsampled by s (ignored for gray), every plane padded to whole
// MCUs.
func newEncodeFrame(w, h, n int, s sampling) *frame {
	if n == 1 {
		s = s444
	}
	f := &frame{n: n, w: w, h: h, hs: s.hs, vs: s.vs}
	pw, ph := roundUp(w, 8*s.hs), roundUp(h, 8*s.vs)
	f.p[0] = plane{w: w, h: h, stride: pw, pix: make([]byte, pw*ph)}
	if n == 3 {
		cw, ch := (w+s.hs-1)/s.hs, (h+s.vs-1)/s.vs
		for c := 1; c < 3; c++ {
			f.p[c] = plane{w: cw, h: ch, stride: pw / s.hs, pix: make([]byte, pw/s.hs*ph/s.vs)}
		}
	}
	return f
}

// replicateEdges fills each plane's padding with its last column and row:
// the encoder codes whole blocks, and a flat extension costs the fewest bits
// and leaks no stale memory into the file.
func (f *frame) replicateEdges() {
	for c := 0; c < f.n; c++ {
		p := &f.p[c]
		rows := len(p.pix) / p.stride
		for y := 0; y < p.h; y++ {
			row := p.pix[y*p.stride : (y+1)*p.stride]
			last := row[p.w-1]
			for x := p.w; x < p.stride; x++ {
				row[x] = last
			}
		}
		lastRow := p.pix[(p.h-1)*p.stride : p.h*p.stride]
		for y := p.h; y < rows; y++ {
			copy(p.pix[y*p.stride:(y+1)*p.stride], lastRow)
		}
	}
}

func roundUp(v, m int) int { return (v + m - 1) / m * m }

// fromImage wraps or converts src into a frame. *image.YCbCr and
// *image.Gray are wrapped without copying; other types are converted to
// 4:4:4, with translucent pixels composited over white (a photo has no
// transparency; black behind a cut-out would be a surprise).
func fromImage(src image.Image) *frame {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	switch s := src.(type) {
	case *image.YCbCr:
		return fromYCbCr(s)
	case *image.Gray:
		return &frame{n: 1, w: w, h: h, p: [3]plane{{w: w, h: h, stride: s.Stride, pix: s.Pix[s.PixOffset(b.Min.X, b.Min.Y):]}}}
	}
	f := &frame{n: 3, w: w, h: h, out: s420}
	for c := 0; c < 3; c++ {
		f.p[c] = plane{w: w, h: h, stride: w, pix: make([]byte, w*h)}
	}
	Y, Cb, Cr := f.p[0].pix, f.p[1].pix, f.p[2].pix
	switch s := src.(type) {
	case *image.NRGBA:
		for y := 0; y < h; y++ {
			row := s.Pix[s.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				r, g, bl, a := row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]
				if a != 255 {
					r, g, bl = overWhite(r, a), overWhite(g, a), overWhite(bl, a)
				}
				i := y*w + x
				Y[i], Cb[i], Cr[i] = color.RGBToYCbCr(r, g, bl)
			}
		}
	case *image.RGBA:
		for y := 0; y < h; y++ {
			row := s.Pix[s.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < w; x++ {
				r, g, bl, a := row[4*x], row[4*x+1], row[4*x+2], row[4*x+3]
				if a != 255 { // premultiplied: add the white the pixel lets through
					r, g, bl = r+(255-a), g+(255-a), bl+(255-a)
				}
				i := y*w + x
				Y[i], Cb[i], Cr[i] = color.RGBToYCbCr(r, g, bl)
			}
		}
	default:
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				r, g, bl, a := src.At(b.Min.X+x, b.Min.Y+y).RGBA()
				white := 0xffff - a
				i := y*w + x
				Y[i], Cb[i], Cr[i] = color.RGBToYCbCr(uint8((r+white)>>8), uint8((g+white)>>8), uint8((bl+white)>>8))
			}
		}
	}
	return f
}

func overWhite(v, a uint8) uint8 {
	return uint8((uint32(v)*uint32(a) + 255*(255-uint32(a)) + 127) / 255)
}

func fromYCbCr(s *image.YCbCr) *frame {
	b := s.Bounds()
	w, h := b.Dx(), b.Dy()
	f := &frame{n: 3, w: w, h: h, out: s422}
	f.p[0] = plane{w: w, h: h, stride: s.YStride, pix: s.Y[s.YOffset(b.Min.X, b.Min.Y):]}
	cw, ch := w, h
	switch s.SubsampleRatio {
	case image.YCbCrSubsampleRatio422:
		cw = (b.Max.X+1)/2 - b.Min.X/2
	case image.YCbCrSubsampleRatio420:
		cw, ch = (b.Max.X+1)/2-b.Min.X/2, (b.Max.Y+1)/2-b.Min.Y/2
	case image.YCbCrSubsampleRatio440:
		ch = (b.Max.Y+1)/2 - b.Min.Y/2
	case image.YCbCrSubsampleRatio411:
		cw = (b.Max.X+3)/4 - b.Min.X/4
	case image.YCbCrSubsampleRatio410:
		cw, ch = (b.Max.X+3)/4-b.Min.X/4, (b.Max.Y+1)/2-b.Min.Y/2
	}
	if ch < h {
		f.out = s420
	}
	off := s.COffset(b.Min.X, b.Min.Y)
	f.p[1] = plane{w: cw, h: ch, stride: s.CStride, pix: s.Cb[off:]}
	f.p[2] = plane{w: cw, h: ch, stride: s.CStride, pix: s.Cr[off:]}
	return f
}

// toImage returns the unpadded picture as an image.Image (tests, PSNR).
func (f *frame) toImage() image.Image {
	if f.n == 1 {
		g := image.NewGray(image.Rect(0, 0, f.w, f.h))
		for y := 0; y < f.h; y++ {
			copy(g.Pix[y*g.Stride:], f.p[0].pix[y*f.p[0].stride:y*f.p[0].stride+f.w])
		}
		return g
	}
	// Resample chroma to full size so any plane geometry converts.
	out := image.NewYCbCr(image.Rect(0, 0, f.w, f.h), image.YCbCrSubsampleRatio444)
	copyPlane(out.Y, out.YStride, f.p[0], f.w, f.h)
	for c := 1; c < 3; c++ {
		full := resizePlane(f.p[c], f.w, f.h, halvedOf(f.p[c], f.p[0]))
		dst := out.Cb
		if c == 2 {
			dst = out.Cr
		}
		copyPlane(dst, out.CStride, full, f.w, f.h)
	}
	return out
}

func copyPlane(dst []byte, stride int, p plane, w, h int) {
	for y := 0; y < h; y++ {
		copy(dst[y*stride:y*stride+w], p.pix[y*p.stride:y*p.stride+w])
	}
}
