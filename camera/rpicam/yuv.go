package rpicam

import (
	"bytes"
	"fmt"
	"image"
	"strings"
)

// strideAlign is the row alignment of the Pi ISPs' YUV420 buffers.
// rpicam-apps' yuv420 writer drops the padding (it writes width bytes of
// each row, see image/yuv.cpp), so its output is packed; a writer that
// kept the buffer's rows would pad the luma rows to a multiple of 64 and
// the chroma rows to half that. Both layouts are read; at the default
// 1,024 px width they are the same bytes.
const strideAlign = 64

// frameBuffer receives the tool's standard output: at most the larger
// layout's size is kept, the rest is counted and dropped, so that a tool
// writing too much is neither blocked on its pipe nor allowed to grow the
// buffer.
type frameBuffer struct {
	buf   []byte
	total int
}

func newFrameBuffer(w, h int) *frameBuffer {
	return &frameBuffer{buf: make([]byte, 0, i420Size(paddedStride(w), h))}
}

func (b *frameBuffer) Write(p []byte) (int, error) {
	b.total += len(p)
	if room := cap(b.buf) - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func paddedStride(w int) int { return (w + strideAlign - 1) / strideAlign * strideAlign }

// i420Size is the byte count of a planar 4:2:0 picture whose luma rows
// take stride bytes (w and h even).
func i420Size(stride, h int) int { return stride*h + 2*(stride/2)*(h/2) }

var jpegMagic = []byte{0xff, 0xd8, 0xff}

// decodeI420 wraps the output as a w×h *image.YCbCr (no copy: the buffer
// is this capture's own). It says what is wrong without quoting a byte of
// the output.
func decodeI420(out *frameBuffer, w, h int) (*image.YCbCr, error) {
	b := out.buf
	packed, padded := i420Size(w, h), i420Size(paddedStride(w), h)
	var stride int
	switch {
	case out.total == 0:
		return nil, fmt.Errorf("the tool wrote nothing to its standard output")
	case bytes.HasPrefix(b, jpegMagic):
		return nil, fmt.Errorf("the tool wrote a JPEG, not YUV420: this rpicam-apps ignores --encoding yuv420; update it (sudo apt install rpicam-apps-lite)")
	case out.total == packed:
		stride = w
	case out.total == padded:
		stride = paddedStride(w)
	default:
		return nil, fmt.Errorf("the tool wrote %d bytes, not a %dx%d YUV420 picture (%d bytes): it may have changed the size; report the rpicam-apps version", out.total, w, h, packed)
	}
	ySize, cStride := stride*h, stride/2
	cSize := cStride * (h / 2)
	return &image.YCbCr{
		Y:              b[:ySize:ySize],
		Cb:             b[ySize : ySize+cSize : ySize+cSize],
		Cr:             b[ySize+cSize : ySize+2*cSize : ySize+2*cSize],
		YStride:        stride,
		CStride:        cStride,
		SubsampleRatio: image.YCbCrSubsampleRatio420,
		Rect:           image.Rect(0, 0, w, h),
	}, nil
}

func lower(s string) string { return strings.ToLower(s) }

// contains reports whether s contains any of subs.
func contains(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
