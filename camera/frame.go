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

// Orientation returns the EXIF orientation (1..8) that mirrors a picture
// left-right when mirror is set and then rotates it clockwise by rotation
// degrees (0, 90, 180 or 270; other values count as 0).
func Orientation(rotation int, mirror bool) int {
	plain := map[int]int{0: 1, 90: 6, 180: 3, 270: 8}
	mirrored := map[int]int{0: 2, 90: 7, 180: 4, 270: 5}
	m := plain
	if mirror {
		m = mirrored
	}
	if o, ok := m[rotation]; ok {
		return o
	}
	return m[0]
}
