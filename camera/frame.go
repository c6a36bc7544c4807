package camera

import (
	"image"
	"image/color"
)

// copyFrame copies img into dst (reused when its geometry matches) as an
// *image.YCbCr. Drivers hand out buffers they reuse; the copy is what lets
// the device close right after the capture.
func copyFrame(img image.Image, dst *image.YCbCr) *image.YCbCr {
	if img == nil || img.Bounds().Empty() {
		return nil
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	src, ok := img.(*image.YCbCr)
	ratio := image.YCbCrSubsampleRatio444
	if ok {
		ratio = src.SubsampleRatio
	}
	if dst == nil || dst.Rect.Dx() != w || dst.Rect.Dy() != h || dst.SubsampleRatio != ratio {
		dst = image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
	}
	if ok {
		for y := 0; y < h; y++ {
			copy(dst.Y[y*dst.YStride:y*dst.YStride+w], src.Y[src.YOffset(b.Min.X, b.Min.Y+y):])
		}
		cw, ch := chromaSize(ratio, w, h)
		off := src.COffset(b.Min.X, b.Min.Y)
		for y := 0; y < ch; y++ {
			copy(dst.Cb[y*dst.CStride:y*dst.CStride+cw], src.Cb[off+y*src.CStride:])
			copy(dst.Cr[y*dst.CStride:y*dst.CStride+cw], src.Cr[off+y*src.CStride:])
		}
		return dst
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.YCbCrModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.YCbCr)
			i := y*dst.YStride + x
			dst.Y[i], dst.Cb[i], dst.Cr[i] = c.Y, c.Cb, c.Cr
		}
	}
	return dst
}

func chromaSize(r image.YCbCrSubsampleRatio, w, h int) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}

// meanLuma samples every 4th pixel of every 4th row: enough to follow
// auto-exposure, cheap enough for every settle frame.
func meanLuma(m *image.YCbCr) float64 {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	var sum, n uint64
	for y := 0; y < h; y += 4 {
		o := m.YOffset(m.Rect.Min.X, m.Rect.Min.Y+y)
		row := m.Y[o : o+w]
		for x := 0; x < w; x += 4 {
			sum += uint64(row[x])
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(sum) / float64(n)
}

// transform mirrors (left-right) and then rotates clockwise. Rotating by
// 90 or 270 swaps the chroma subsampling axes (4:2:2 becomes 4:4:0); the
// ratios without a transposed counterpart are first widened to 4:4:4.
func transform(m *image.YCbCr, rotation int, mirror bool) *image.YCbCr {
	if rotation == 0 && !mirror {
		return m
	}
	w, h := m.Rect.Dx(), m.Rect.Dy()
	ratio := m.SubsampleRatio
	quarter := rotation == 90 || rotation == 270
	if quarter && ratio != image.YCbCrSubsampleRatio444 && ratio != image.YCbCrSubsampleRatio420 &&
		ratio != image.YCbCrSubsampleRatio422 && ratio != image.YCbCrSubsampleRatio440 {
		m = to444(m)
		ratio = image.YCbCrSubsampleRatio444
	}
	ow, oh, oratio := w, h, ratio
	if quarter {
		ow, oh = h, w
		switch ratio {
		case image.YCbCrSubsampleRatio422:
			oratio = image.YCbCrSubsampleRatio440
		case image.YCbCrSubsampleRatio440:
			oratio = image.YCbCrSubsampleRatio422
		}
	}
	out := image.NewYCbCr(image.Rect(0, 0, ow, oh), oratio)
	mapPlane(out.Y, out.YStride, ow, oh, m.Y, m.YStride, w, h, rotation, mirror)
	scw, sch := chromaSize(ratio, w, h)
	dcw, dch := chromaSize(oratio, ow, oh)
	mapPlane(out.Cb, out.CStride, dcw, dch, m.Cb, m.CStride, scw, sch, rotation, mirror)
	mapPlane(out.Cr, out.CStride, dcw, dch, m.Cr, m.CStride, scw, sch, rotation, mirror)
	return out
}

// mapPlane fills dst (dw x dh) from src (sw x sh) for the given transform.
func mapPlane(dst []byte, dstride, dw, dh int, src []byte, sstride, sw, sh, rotation int, mirror bool) {
	for y := 0; y < dh; y++ {
		row := dst[y*dstride : y*dstride+dw]
		for x := range row {
			var sx, sy int
			switch rotation {
			case 90: // output (x,y) shows source (y, sh-1-x)
				sx, sy = y, sh-1-x
			case 180:
				sx, sy = sw-1-x, sh-1-y
			case 270:
				sx, sy = sw-1-y, x
			default:
				sx, sy = x, y
			}
			if mirror {
				sx = sw - 1 - sx
			}
			row[x] = src[sy*sstride+sx]
		}
	}
}

func to444(m *image.YCbCr) *image.YCbCr {
	b := m.Rect
	out := image.NewYCbCr(image.Rect(0, 0, b.Dx(), b.Dy()), image.YCbCrSubsampleRatio444)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			c := m.YCbCrAt(b.Min.X+x, b.Min.Y+y)
			i := y*out.YStride + x
			out.Y[i], out.Cb[i], out.Cr[i] = c.Y, c.Cb, c.Cr
		}
	}
	return out
}
