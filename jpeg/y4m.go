package jpeg

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
)

// YUV4MPEG2 is the plain container for raw Y'CbCr camera frames (what a
// V4L2 camera delivers before any compression), so the photo tool and the
// benchmark can feed the encoder exactly what a capture would.

const y4mMagic = "YUV4MPEG2 "

// parseY4M reads the first frame of a YUV4MPEG2 stream: C420* (any chroma
// siting), C422, C444 or Cmono. XCOLORRANGE=LIMITED samples are expanded to
// the full range JPEG uses; without the tag the samples are taken as full
// range.
func parseY4M(data []byte, maxPixels int) (*frame, error) {
	const maxHeader = 512
	end := bytes.IndexByte(data[:min(len(data), maxHeader)], '\n')
	if !bytes.HasPrefix(data, []byte(y4mMagic)) || end < 0 {
		return nil, fmt.Errorf("%w: bad YUV4MPEG2 header", ErrBadInput)
	}
	w, h, cs, limited := 0, 0, "420jpeg", false
	for _, tok := range bytes.Fields(data[len(y4mMagic):end]) {
		v := string(tok[1:])
		switch tok[0] {
		case 'W':
			w, _ = strconv.Atoi(v)
		case 'H':
			h, _ = strconv.Atoi(v)
		case 'C':
			cs = v
		case 'X':
			if v == "COLORRANGE=LIMITED" {
				limited = true
			}
		}
	}
	if w <= 0 || h <= 0 || w > 1<<16 || h > 1<<16 {
		return nil, fmt.Errorf("%w: YUV4MPEG2 size %dx%d", ErrBadInput, w, h)
	}
	if int64(w)*int64(h) > int64(maxPixels) { // int64: w*h overflows a 32-bit int
		return nil, fmt.Errorf("%w: %dx%d pixels", ErrInputTooLarge, w, h)
	}
	n, cw, ch := 3, w, h
	switch {
	case cs == "mono":
		n = 1
	case len(cs) >= 3 && cs[:3] == "420":
		cw, ch = (w+1)/2, (h+1)/2
	case cs == "422":
		cw = (w + 1) / 2
	case cs == "444":
	default:
		return nil, fmt.Errorf("%w: YUV4MPEG2 colorspace %.16q", ErrUnsupportedInput, cs)
	}
	rest := data[end+1:]
	fend := bytes.IndexByte(rest[:min(len(rest), maxHeader)], '\n')
	if !bytes.HasPrefix(rest, []byte("FRAME")) || fend < 0 {
		return nil, fmt.Errorf("%w: YUV4MPEG2 has no frame", ErrBadInput)
	}
	pix := rest[fend+1:]
	size := w * h
	if n == 3 {
		size += 2 * cw * ch
	}
	if len(pix) < size {
		return nil, fmt.Errorf("%w: YUV4MPEG2 frame is truncated", ErrBadInput)
	}
	f := &frame{n: n, w: w, h: h, out: s422}
	if ch < h {
		f.out = s420
	}
	f.p[0] = plane{w: w, h: h, stride: w, pix: pix[:w*h]}
	if n == 3 {
		f.p[1] = plane{w: cw, h: ch, stride: cw, pix: pix[w*h : w*h+cw*ch]}
		f.p[2] = plane{w: cw, h: ch, stride: cw, pix: pix[w*h+cw*ch : size]}
	}
	if limited {
		expandRange(f)
	}
	return f, nil
}

// expandRange maps BT.601 studio swing (Y 16..235, C 16..240) to full range
// in place; the caller's buffer is not shared with anyone else.
func expandRange(f *frame) {
	var ly, lc [256]byte
	for i := range ly {
		ly[i] = byte(min(max(math.Round(float64(i-16)*255/219), 0), 255))
		lc[i] = byte(min(max(math.Round(float64(i-128)*255/224)+128, 0), 255))
	}
	for c := 0; c < f.n; c++ {
		lut := &ly
		if c > 0 {
			lut = &lc
		}
		p := f.p[c]
		for y := 0; y < p.h; y++ {
			row := p.pix[y*p.stride : y*p.stride+p.w]
			for i, v := range row {
				row[i] = lut[v]
			}
		}
	}
}
