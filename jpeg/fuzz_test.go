package jpeg

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// fixtureImages returns the images of the public conformance fixtures
// (the project's copy of spec/physical-conformance.json).
func fixtureImages(t testing.TB) []protocol.Image {
	t.Helper()
	raw, err := os.ReadFile("../conformance/fixtures/physical-conformance.json")
	if err != nil {
		t.Fatalf("conformance fixtures: %v", err)
	}
	var f struct {
		Observations []struct {
			Observation struct {
				Image *protocol.Image `json:"image"`
			} `json:"observation"`
		} `json:"observations"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	var out []protocol.Image
	for _, o := range f.Observations {
		if o.Observation.Image != nil {
			out = append(out, *o.Observation.Image)
		}
	}
	if len(out) == 0 {
		t.Fatal("no images in the fixtures")
	}
	return out
}

var knownCodes = map[string]bool{
	protocol.CodeImageBase64: true, protocol.CodeImageIntegrity: true, protocol.CodeImageJPEG: true,
	protocol.CodeImageDimensions: true, protocol.CodeImageSize: true, protocol.CodeObservationSchema: true,
}

// FuzzVerify: whatever arrives, Verify returns nil or a bounded
// *protocol.Error with a known code that never quotes the data; and what
// it accepts really is a bounded JPEG of the declared size.
func FuzzVerify(f *testing.F) {
	for _, img := range fixtureImages(f) {
		f.Add(img.MediaType, img.DataBase64, img.ByteCount, img.SHA256, img.PixelWidth, img.PixelHeight)
	}
	for i, m := range []image.Image{photo(64, 48, 2, 30), image.NewGray(image.Rect(0, 0, 1, 1)), photo(1200, 300, 3, 31)} {
		r, err := Encode(m, nil)
		if err != nil {
			f.Fatal(err)
		}
		img := r.Image
		f.Add(img.MediaType, img.DataBase64, img.ByteCount, img.SHA256, img.PixelWidth, img.PixelHeight)
		f.Add(img.MediaType, img.DataBase64+"\n", img.ByteCount, img.SHA256, img.PixelWidth, img.PixelHeight)
		f.Add(img.MediaType, img.DataBase64, img.ByteCount, img.SHA256, 60000, 60000)
		forged := base64.StdEncoding.EncodeToString(withSOF(r.Data, 60000+i, 60000))
		f.Add(img.MediaType, forged, img.ByteCount, img.SHA256, 60000+i, 60000)
	}
	f.Fuzz(func(t *testing.T, mediaType, b64 string, byteCount int, sha string, w, h int) {
		img := &protocol.Image{MediaType: mediaType, DataBase64: b64, ByteCount: byteCount, SHA256: sha, PixelWidth: w, PixelHeight: h}
		err := Verify(img)
		if err != nil {
			var pe *protocol.Error
			if !errors.As(err, &pe) || !knownCodes[pe.Code] {
				t.Fatalf("unexpected error %T %v", err, err)
			}
			if len(pe.Message) > protocol.MaxMessageLen+len("…") {
				t.Fatalf("unbounded message (%d bytes)", len(pe.Message))
			}
			if len(b64) >= 12 && strings.Contains(err.Error(), b64[:12]) {
				t.Fatalf("error quotes the data: %v", err)
			}
			return
		}
		data, derr := base64.StdEncoding.Strict().DecodeString(b64)
		if derr != nil || len(data) > protocol.MaxImageBytes || len(data) != byteCount {
			t.Fatalf("accepted bad data: %v, %d bytes, byteCount %d", derr, len(data), byteCount)
		}
		d, err := Describe(data)
		if err != nil || d.SHA256 != sha || d.PixelWidth != w || d.PixelHeight != h || w > 1024 || h > 1024 {
			t.Fatalf("accepted a mismatch: %+v vs %dx%d %v", d, w, h, err)
		}
	})
}

// FuzzEncodeReader feeds arbitrary bytes to the file-input decoders, the
// hand-written libjpeg glue above all: no crash, and anything accepted
// must come out as a valid bounded JPEG.
func FuzzEncodeReader(f *testing.F) {
	p := photo(160, 120, 2, 32)
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, p); err != nil {
		f.Fatal(err)
	}
	f.Add(stdJPEG(f, p, 85))
	f.Add(progressiveJPEG(f, p, s420))
	f.Add(progressiveJPEG(f, subsample(p, image.YCbCrSubsampleRatio422), s422))
	f.Add(stdJPEG(f, image.NewGray(image.Rect(0, 0, 40, 30)), 70))
	f.Add(withSegments(stdJPEG(f, p, 85), exifOrientationSegment(6, littleEndian.order)))
	f.Add(pngBuf.Bytes())
	f.Add(y4m(p, true))
	for _, img := range fixtureImages(f) {
		if data, err := base64.StdEncoding.DecodeString(img.DataBase64); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Small limits keep each run far under the fuzzer's 10 s per-input deadline.
		r, err := EncodeReader(bytes.NewReader(data), &Options{MaxInputPixels: 1 << 20, MaxInputBytes: 256 << 10})
		if err != nil {
			if !isAny(err, ErrBadInput, ErrUnsupportedInput, ErrInputTooLarge, ErrTooComplex, errUnsupportedColor) {
				t.Fatalf("unclassified error: %v", err)
			}
			return
		}
		checkOutput(t, r)
	})
}
