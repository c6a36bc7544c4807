package jpeg

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestEncodeShapesAndTypes(t *testing.T) {
	p := photo(1500, 1000, 3, 1)
	gray := image.NewGray(image.Rect(0, 0, 700, 1300))
	for i := range gray.Pix {
		gray.Pix[i] = uint8(i/700) ^ uint8(i%700/64)
	}
	nrgba := image.NewNRGBA(image.Rect(0, 0, 333, 777))
	for i := 0; i < len(nrgba.Pix); i += 4 {
		nrgba.Pix[i], nrgba.Pix[i+1], nrgba.Pix[i+2], nrgba.Pix[i+3] = uint8(i), uint8(i>>8), 200, uint8(i>>4)
	}
	rgba := image.NewRGBA(image.Rect(0, 0, 1100, 900))
	for i := range rgba.Pix {
		rgba.Pix[i] = uint8(i * 7)
	}
	cases := map[string]image.Image{
		"ycbcr444":     p,
		"ycbcr420":     subsample(p, image.YCbCrSubsampleRatio420),
		"ycbcr422":     subsample(p, image.YCbCrSubsampleRatio422),
		"ycbcr440":     subsample(p, image.YCbCrSubsampleRatio440),
		"ycbcr411":     subsample(p, image.YCbCrSubsampleRatio411),
		"odd-subimage": subsample(p, image.YCbCrSubsampleRatio420).SubImage(image.Rect(3, 5, 1240, 996)),
		"gray":         gray,
		"nrgba-alpha":  nrgba,
		"rgba":         rgba,
		"paletted":     image.NewPaletted(image.Rect(0, 0, 50, 40), color.Palette{color.White, color.Black}),
		"1x1":          photo(1, 1, 0, 2),
		"exact-1024":   photo(1024, 1024, 2, 3),
		"1025x3":       photo(1025, 3, 2, 4),
		"wide":         photo(4000, 20, 2, 5),
		"tall":         photo(17, 3000, 2, 6),
	}
	for name, m := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := Encode(m, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, r)
			b := m.Bounds()
			// None of these needs shrinking below the fitted size.
			wantW, wantH := fitSize(b.Dx(), b.Dy(), 1024)
			if r.Width != wantW || r.Height != wantH {
				t.Errorf("size %dx%d, want %dx%d (quality %d)", r.Width, r.Height, wantW, wantH, r.Quality)
			}
			if r.SourceWidth != b.Dx() || r.SourceHeight != b.Dy() {
				t.Errorf("source %dx%d, want %v", r.SourceWidth, r.SourceHeight, b)
			}
		})
	}
}

// The search must land just under the budget, not anywhere under it.
func TestEncodeUsesTheBudget(t *testing.T) {
	r, err := Encode(photo(1920, 1080, 4, 7), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, r)
	if len(r.Data) < 61440*96/100 {
		t.Errorf("%d bytes leaves more than 4%% of the budget unused (quality %d)", len(r.Data), r.Quality)
	}
	small, err := Encode(photo(1920, 1080, 4, 7), &Options{MaxBytes: 20000, MaxSide: 640})
	if err != nil {
		t.Fatal(err)
	}
	if len(small.Data) > 20000 || small.Width > 640 || small.Height > 640 {
		t.Errorf("tightened bounds ignored: %d bytes, %dx%d", len(small.Data), small.Width, small.Height)
	}
	loose, _ := Encode(photo(100, 100, 1, 8), &Options{MaxBytes: 1 << 30, MaxSide: 1 << 20})
	if loose == nil || len(loose.Data) > 61440 {
		t.Errorf("bounds above the protocol's were not clamped")
	}
}

// White noise cannot be compressed: the encoder must shrink the picture
// rather than go below MinQuality, and still fit.
func TestEncodeIncompressibleShrinks(t *testing.T) {
	m := image.NewGray(image.Rect(0, 0, 1600, 1600))
	rng := uint32(1)
	for i := range m.Pix {
		rng = rng*1664525 + 1013904223
		m.Pix[i] = uint8(rng >> 24)
	}
	r, err := Encode(m, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, r)
	if r.Width >= 1024 {
		t.Errorf("noise kept %dx%d at quality %d", r.Width, r.Height, r.Quality)
	}
	if r.Quality < DefaultMinQuality-5 {
		t.Errorf("quality %d far below the minimum %d", r.Quality, DefaultMinQuality)
	}
	if _, err := Encode(m, &Options{MaxBytes: 1}); !errors.Is(err, ErrTooComplex) {
		t.Errorf("1-byte budget: %v", err)
	}
}

func TestEncodeRejects(t *testing.T) {
	if _, err := Encode(nil, nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("nil: %v", err)
	}
	if _, err := Encode(image.NewGray(image.Rect(0, 0, 0, 5)), nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("empty: %v", err)
	}
	if _, err := Encode(image.NewGray(image.Rect(0, 0, 300, 300)), &Options{MaxInputPixels: 1000}); !errors.Is(err, ErrInputTooLarge) {
		t.Errorf("too many pixels: %v", err)
	}
}

func TestEncodeReportsClockTime(t *testing.T) {
	now := time.Unix(0, 0)
	clock := func() time.Time { now = now.Add(time.Millisecond); return now }
	r, err := Encode(photo(200, 100, 0, 9), &Options{Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	if r.EncodeTime <= 0 || r.EncodeTime > time.Second {
		t.Errorf("EncodeTime %v from the injected clock", r.EncodeTime)
	}
}

func TestEncodeFileFormats(t *testing.T) {
	dir := t.TempDir()
	p := photo(2000, 1500, 3, 10)
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, p); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{
		"baseline.jpg":    stdJPEG(t, p, 90),
		"progressive.jpg": progressiveJPEG(t, p, s420),
		"prog422.jpg":     progressiveJPEG(t, subsample(p, image.YCbCrSubsampleRatio422), s422),
		"gray.jpg":        stdJPEG(t, image.NewGray(image.Rect(0, 0, 900, 1200)), 80),
		"photo.png":       pngBuf.Bytes(),
		"frame.y4m":       y4m(p, false),
		"limited.y4m":     y4m(p, true),
	}
	for name, data := range files {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			r, err := EncodeFile(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, r)
			r2, err := EncodeReader(bytes.NewReader(data), nil) // no Stat: the bounded ReadAll path
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(r.Data, r2.Data) {
				t.Error("EncodeFile and EncodeReader disagree")
			}
		})
	}
}

// y4m wraps m (4:4:4) as a 4:2:0 YUV4MPEG2 frame.
func y4m(m *image.YCbCr, limited bool) []byte {
	s := subsample(m, image.YCbCrSubsampleRatio420)
	hdr := "YUV4MPEG2 W" + itoa(m.Rect.Dx()) + " H" + itoa(m.Rect.Dy()) + " F30:1 C420jpeg"
	if limited {
		hdr += " XCOLORRANGE=LIMITED"
	}
	out := []byte(hdr + "\nFRAME\n")
	out = append(out, s.Y...)
	return append(append(out, s.Cb...), s.Cr...)
}

func itoa(v int) string { return string(appendInt(nil, v)) }

func appendInt(b []byte, v int) []byte {
	if v >= 10 {
		b = appendInt(b, v/10)
	}
	return append(b, byte('0'+v%10))
}

// A red block in the stored top-left corner must land where each EXIF
// orientation puts it, and no EXIF may survive.
func TestEncodeAppliesEXIFOrientation(t *testing.T) {
	const w, h = 1200, 800
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.RGBA{200, 200, 200, 255}
			if x < w/4 && y < h/4 {
				c = color.RGBA{220, 20, 20, 255}
			}
			m.SetRGBA(x, y, c)
		}
	}
	base := stdJPEG(t, m, 92)
	// Where the red corner ends up, as (right?, bottom?) in the output.
	want := map[int][2]bool{1: {false, false}, 2: {true, false}, 3: {true, true}, 4: {false, true},
		5: {false, false}, 6: {true, false}, 7: {true, true}, 8: {false, true}}
	for o := 1; o <= 8; o++ {
		for _, bo := range []binaryOrder{littleEndian, bigEndian} {
			data := withSegments(base, exifOrientationSegment(o, bo.order), segment(0xFE, []byte("comment")), segment(0xE2, []byte("ICC_PROFILE\x00junk")))
			r, err := EncodeReader(bytes.NewReader(data), nil)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, r)
			if transposes(o) != (r.Width < r.Height) {
				t.Errorf("orientation %d: output %dx%d", o, r.Width, r.Height)
			}
			dec, err := decodeForTest(r.Data)
			if err != nil {
				t.Fatal(err)
			}
			x, y := r.Width/10, r.Height/10
			if want[o][0] {
				x = r.Width - 1 - x
			}
			if want[o][1] {
				y = r.Height - 1 - y
			}
			if rr, g, _, _ := dec.At(x, y).RGBA(); rr>>8 < 150 || g>>8 > 90 {
				t.Errorf("orientation %d (%s): no red corner at (%d,%d)", o, bo.name, x, y)
			}
		}
	}
}

func TestEncodeReaderRejects(t *testing.T) {
	p := photo(300, 200, 1, 11)
	good := stdJPEG(t, p, 90)
	canary := "C4NARY-IMAGE-BYTES"
	canaryB64 := base64.StdEncoding.EncodeToString([]byte(canary))
	cases := map[string]struct {
		data []byte
		opts *Options
		want []error
	}{
		"empty":       {nil, nil, []error{ErrUnsupportedInput}},
		"text":        {[]byte("hello " + canary), nil, []error{ErrUnsupportedInput}},
		"gif":         {[]byte("GIF89a" + canary), nil, []error{ErrUnsupportedInput}},
		"truncated":   {good[:len(good)/3], nil, []error{ErrBadInput, nil}},
		"soi-only":    {[]byte{0xFF, 0xD8, 0xFF}, nil, []error{ErrBadInput}},
		"huge-claim":  {withSOF(good, 60000, 60000), nil, []error{ErrInputTooLarge, ErrBadInput}},
		"zero-dims":   {withSOF(good, 0, 10), nil, []error{ErrBadInput}},
		"canary-body": {append(append([]byte{}, good[:len(good)-200]...), []byte(canary+canary+canary)...), nil, []error{ErrBadInput, nil}},
		"over-limit":  {good, &Options{MaxInputBytes: 100}, []error{ErrInputTooLarge}},
		"bad-png":     {append([]byte("\x89PNG\r\n\x1a\n"), canary...), nil, []error{ErrBadInput}},
		"bad-y4m":     {[]byte("YUV4MPEG2 W10 H10\nFRAME\n" + canary), nil, []error{ErrBadInput}},
		"y4m-huge":    {[]byte("YUV4MPEG2 W65536 H65536\nFRAME\n"), nil, []error{ErrInputTooLarge}},
		"y4m-weird":   {[]byte("YUV4MPEG2 W10 H10 C411\nFRAME\n"), nil, []error{ErrUnsupportedInput}},
		"y4m-noframe": {[]byte("YUV4MPEG2 W10 H10\n"), nil, []error{ErrBadInput}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r, err := EncodeReader(bytes.NewReader(c.data), c.opts)
			noCanary(t, err, canary, canaryB64)
			if err == nil {
				// Recoverable corruption (libjpeg pads a truncated scan)
				// is allowed, but the output must still be valid.
				for _, w := range c.want {
					if w == nil {
						checkOutput(t, r)
						return
					}
				}
				t.Fatal("accepted")
			}
			if !isAny(err, c.want...) {
				t.Fatalf("got %v, want one of %v", err, c.want)
			}
		})
	}
}

// withSOF rewrites the dimensions in the first SOF0 of a JPEG.
func withSOF(jpg []byte, w, h int) []byte {
	out := append([]byte{}, jpg...)
	for i := 2; i+9 < len(out); i++ {
		if out[i] == 0xFF && out[i+1] == 0xC0 {
			out[i+5], out[i+6] = byte(h>>8), byte(h)
			out[i+7], out[i+8] = byte(w>>8), byte(w)
			break
		}
	}
	return out
}

func TestCheckMetadataFree(t *testing.T) {
	base := stdJPEG(t, photo(64, 64, 0, 12), 90)
	if err := CheckMetadataFree(base); err != nil {
		t.Fatalf("image/jpeg output: %v", err)
	}
	for _, seg := range [][]byte{segment(0xE0, []byte("JFIF\x00\x01\x01")), segment(0xE1, []byte("Exif\x00\x00")), segment(0xFE, []byte("hi")), segment(0xEF, nil)} {
		if err := CheckMetadataFree(withSegments(base, seg)); !errors.Is(err, ErrMetadata) {
			t.Errorf("segment 0x%02X: %v", seg[1], err)
		}
	}
	// A COM between the frame header and the scan is found too.
	i := bytes.Index(base, []byte{0xFF, 0xDA})
	late := append(append(append([]byte{}, base[:i]...), segment(0xFE, []byte("late"))...), base[i:]...)
	if err := CheckMetadataFree(late); !errors.Is(err, ErrMetadata) {
		t.Errorf("late COM: %v", err)
	}
	if err := CheckMetadataFree([]byte("nope")); err == nil {
		t.Error("accepted a non-JPEG")
	}
}

func TestDescribe(t *testing.T) {
	data := stdJPEG(t, photo(31, 17, 0, 13), 90)
	img, err := Describe(data)
	if err != nil {
		t.Fatal(err)
	}
	if img.PixelWidth != 31 || img.PixelHeight != 17 || img.ByteCount != len(data) || img.MediaType != "image/jpeg" {
		t.Fatalf("%+v", img)
	}
	if err := Verify(&img); err != nil {
		t.Fatal(err)
	}
	if _, err := Describe([]byte("not a jpeg")); err == nil {
		t.Error("described a non-JPEG")
	}
}

// Files over streamAbove are streamed into libjpeg; the result must be the
// one the in-memory path gives.
func TestEncodeFileStreamsLargeJPEG(t *testing.T) {
	dir := t.TempDir()
	for name, data := range map[string][]byte{
		"progressive": progressiveJPEG(t, photo(3000, 2000, 12, 50), s420),
		"baseline":    stdJPEG(t, photo(3000, 2000, 12, 51), 100),
	} {
		if len(data) <= streamAbove {
			t.Fatalf("%s: test file is only %d bytes", name, len(data))
		}
		path := filepath.Join(dir, name+".jpg")
		if err := os.WriteFile(path, withSegments(data, exifOrientationSegment(8, bigEndian.order)), 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := EncodeFile(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, r)
		if r.Width >= r.Height {
			t.Errorf("%s: orientation 8 not applied: %dx%d", name, r.Width, r.Height)
		}
		mem, err := EncodeReader(bytes.NewReader(withSegments(data, exifOrientationSegment(8, bigEndian.order))), nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(r.Data, mem.Data) {
			t.Errorf("%s: streamed and in-memory decodes differ", name)
		}
		// A damaged large file fails cleanly on the streaming path too.
		bad := append([]byte{}, data[:len(data)/2]...)
		for i := 2000; i < len(bad); i += 997 {
			bad[i] ^= 0x5A
		}
		if err := os.WriteFile(path, bad, 0o600); err != nil {
			t.Fatal(err)
		}
		if r, err := EncodeFile(path, nil); err == nil {
			checkOutput(t, r)
		} else if !isAny(err, ErrBadInput) {
			t.Errorf("%s damaged: %v", name, err)
		}
	}
	if _, err := EncodeFile(filepath.Join(dir, "progressive.jpg"), &Options{MaxInputBytes: 1 << 20}); !errors.Is(err, ErrInputTooLarge) {
		t.Errorf("size limit on the streaming path: %v", err)
	}
}
