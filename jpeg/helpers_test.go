package jpeg

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	stdjpeg "image/jpeg"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// photo returns a deterministic w x h picture with what makes photos hard
// to compress: gradients, hard and soft edges, fine texture and noise.
// noise is the standard deviation of per-pixel noise in levels.
func photo(w, h int, noise float64, seed uint64) *image.YCbCr {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio444)
	for y := 0; y < h; y++ {
		fy := float64(y) / float64(h)
		for x := 0; x < w; x++ {
			fx := float64(x) / float64(w)
			r := 200*fx + 30*math.Sin(fy*20)
			g := 120 + 80*math.Sin((fx+fy)*9)
			b := 220 * fy
			if (fx-0.3)*(fx-0.3)+(fy-0.6)*(fy-0.6) < 0.04 {
				r, g, b = 230, 40, 50
			}
			if fx > 0.6 && fx < 0.9 && fy > 0.1 && fy < 0.3 {
				t := 60 * math.Sin(float64(x)*1.7) * math.Sin(float64(y)*1.3)
				r, g, b = 128+t, 128+t, 128+t
			}
			n := noise * rng.NormFloat64()
			yy, cb, cr := color.RGBToYCbCr(clampByte(r+n), clampByte(g+n), clampByte(b+n))
			i := y*m.YStride + x
			m.Y[i], m.Cb[i], m.Cr[i] = yy, cb, cr
		}
	}
	return m
}

func clampByte(v float64) uint8 { return uint8(math.Min(math.Max(math.Round(v), 0), 255)) }

// subsample converts a 4:4:4 picture to the given ratio by averaging.
func subsample(src *image.YCbCr, r image.YCbCrSubsampleRatio) *image.YCbCr {
	b := src.Bounds()
	dst := image.NewYCbCr(b, r)
	copy(dst.Y, src.Y)
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			ci := dst.COffset(x, y)
			si := src.COffset(x, y)
			// Last writer wins: a cheap box filter is not the point here.
			dst.Cb[ci], dst.Cr[ci] = src.Cb[si], src.Cr[si]
		}
	}
	return dst
}

// stdJPEG encodes m with the standard library (baseline, 4:2:0 or gray).
func stdJPEG(t testing.TB, m image.Image, q int) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := stdjpeg.Encode(&buf, m, &stdjpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// progressiveJPEG encodes m as a progressive 4:2:0 JPEG with libjpeg.
func progressiveJPEG(t testing.TB, m image.Image, s sampling) []byte {
	t.Helper()
	f := fromImage(m)
	b := m.Bounds()
	enc := newEncodeFrame(b.Dx(), b.Dy(), f.n, s)
	for c := 0; c < f.n; c++ {
		resizeInto(&enc.p[c], f.p[c])
	}
	enc.replicateEdges()
	data, err := encodeTurbo(enc, tablesAt(scaleOf(92)), true)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// withSegments inserts marker segments right after SOI.
func withSegments(jpg []byte, segs ...[]byte) []byte {
	out := append([]byte{}, jpg[:2]...)
	for _, s := range segs {
		out = append(out, s...)
	}
	return append(out, jpg[2:]...)
}

func segment(marker byte, payload []byte) []byte {
	s := []byte{0xFF, marker, 0, 0}
	binary.BigEndian.PutUint16(s[2:], uint16(len(payload)+2))
	return append(s, payload...)
}

// exifOrientationSegment builds an APP1 Exif segment with IFD0 holding
// only the orientation tag, in the given byte order.
func exifOrientationSegment(o int, bo binary.ByteOrder) []byte {
	tiff := make([]byte, 8+2+12+4)
	if bo == binary.LittleEndian {
		copy(tiff, "II")
	} else {
		copy(tiff, "MM")
	}
	bo.PutUint16(tiff[2:], 42)
	bo.PutUint32(tiff[4:], 8)
	bo.PutUint16(tiff[8:], 1)
	bo.PutUint16(tiff[10:], 0x0112)
	bo.PutUint16(tiff[12:], 3)
	bo.PutUint32(tiff[14:], 1)
	bo.PutUint16(tiff[18:], uint16(o))
	return segment(0xE1, append([]byte("Exif\x00\x00"), tiff...))
}

// checkOutput asserts every rule an encoder output must meet.
func checkOutput(t *testing.T, r *Result) {
	t.Helper()
	if len(r.Data) == 0 || len(r.Data) > protocol.MaxImageBytes {
		t.Fatalf("output is %d bytes", len(r.Data))
	}
	if r.Width > protocol.MaxImagePixels || r.Height > protocol.MaxImagePixels || r.Width < 1 || r.Height < 1 {
		t.Fatalf("output is %dx%d", r.Width, r.Height)
	}
	if err := CheckMetadataFree(r.Data); err != nil {
		t.Fatal(err)
	}
	if err := Verify(&r.Image); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if r.Image.PixelWidth != r.Width || r.Image.PixelHeight != r.Height || r.Image.ByteCount != len(r.Data) {
		t.Fatalf("metadata %dx%d %d B, result %dx%d %d B", r.Image.PixelWidth, r.Image.PixelHeight, r.Image.ByteCount, r.Width, r.Height, len(r.Data))
	}
	m, err := stdjpeg.Decode(bytes.NewReader(r.Data))
	if err != nil {
		t.Fatalf("image/jpeg cannot decode the output: %v", err)
	}
	if b := m.Bounds(); b.Dx() != r.Width || b.Dy() != r.Height {
		t.Fatalf("decoded %v, result %dx%d", b, r.Width, r.Height)
	}
}

// noCanary fails if err's text carries any of the canary strings.
func noCanary(t *testing.T, err error, canaries ...string) {
	t.Helper()
	if err == nil {
		return
	}
	for _, c := range canaries {
		if c != "" && strings.Contains(err.Error(), c) {
			t.Fatalf("error echoes input bytes: %v", err)
		}
	}
}

func isAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

type binaryOrder struct {
	name  string
	order binary.ByteOrder
}

var (
	littleEndian = binaryOrder{"II", binary.LittleEndian}
	bigEndian    = binaryOrder{"MM", binary.BigEndian}
)

func decodeForTest(data []byte) (image.Image, error) {
	return stdjpeg.Decode(bytes.NewReader(data))
}
