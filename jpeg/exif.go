package jpeg

import (
	"encoding/binary"
	"fmt"
)

// jpegHeader is what the encoder needs to know before decoding a JPEG.
type jpegHeader struct {
	width, height int
	components    int
	chromaHalfV   bool // the chroma of a 3-component frame has half the luma's rows
	orientation   int  // EXIF orientation 1..8 (1 when absent or invalid)
}

// scanJPEG walks the marker segments up to the first SOS, bounded by len(data),
// reading the frame header and the EXIF orientation. The EXIF reader is
// hand-written: it needs one tag of IFD0, and the Go EXIF libraries parse
// (and allocate for) the whole untrusted tree to get it.
func scanJPEG(data []byte) (jpegHeader, error) {
	h := jpegHeader{orientation: 1}
	if len(data) < 4 || data[0] != 0xFF || data[1] != 0xD8 {
		return h, fmt.Errorf("%w: no JPEG start-of-image marker", ErrBadInput)
	}
	i := 2
	for {
		if i >= len(data) || data[i] != 0xFF {
			return h, fmt.Errorf("%w: JPEG marker expected at offset %d", ErrBadInput, i)
		}
		for i < len(data) && data[i] == 0xFF {
			i++
		}
		if i >= len(data) {
			return h, fmt.Errorf("%w: JPEG truncated in its header", ErrBadInput)
		}
		m := data[i]
		i++
		if m == 0x01 || (m >= 0xD0 && m <= 0xD8) {
			continue
		}
		if m == 0xD9 || m == 0xDA {
			if h.width == 0 {
				return h, fmt.Errorf("%w: JPEG has no frame header", ErrBadInput)
			}
			return h, nil
		}
		if i+2 > len(data) {
			return h, fmt.Errorf("%w: JPEG truncated in its header", ErrBadInput)
		}
		n := int(binary.BigEndian.Uint16(data[i:]))
		if n < 2 || i+n > len(data) {
			return h, fmt.Errorf("%w: JPEG segment length out of range", ErrBadInput)
		}
		seg := data[i+2 : i+n]
		switch {
		case m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC:
			if h.width != 0 {
				break // only the first frame counts
			}
			if len(seg) < 6 {
				return h, fmt.Errorf("%w: short JPEG frame header", ErrBadInput)
			}
			h.height = int(binary.BigEndian.Uint16(seg[1:]))
			h.width = int(binary.BigEndian.Uint16(seg[3:]))
			h.components = int(seg[5])
			if h.components == 3 && len(seg) >= 6+9 {
				yv, cv := seg[7]&0x0F, seg[10]&0x0F
				h.chromaHalfV = yv > cv
			}
			if h.width == 0 || h.height == 0 {
				return h, fmt.Errorf("%w: JPEG frame header declares a zero dimension", ErrBadInput)
			}
		case m == 0xE1:
			if o := exifOrientation(seg); o != 0 {
				h.orientation = o
			}
		}
		i += n
	}
}

// exifOrientation returns tag 0x0112 of IFD0 in an APP1 Exif payload, or 0.
func exifOrientation(seg []byte) int {
	const hdr = "Exif\x00\x00"
	if len(seg) < len(hdr)+8 || string(seg[:len(hdr)]) != hdr {
		return 0
	}
	t := seg[len(hdr):]
	var bo binary.ByteOrder
	switch string(t[:2]) {
	case "II":
		bo = binary.LittleEndian
	case "MM":
		bo = binary.BigEndian
	default:
		return 0
	}
	if bo.Uint16(t[2:]) != 42 {
		return 0
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off > len(t)-2 {
		return 0
	}
	count := int(bo.Uint16(t[off:]))
	for e := 0; e < count; e++ {
		p := off + 2 + 12*e
		if p+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[p:]) != 0x0112 {
			continue
		}
		if bo.Uint16(t[p+2:]) != 3 || bo.Uint32(t[p+4:]) != 1 { // SHORT, count 1
			return 0
		}
		if v := int(bo.Uint16(t[p+8:])); v >= 1 && v <= 8 {
			return v
		}
		return 0
	}
	return 0
}
