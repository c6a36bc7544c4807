package protocol

import (
	"encoding/base64"
	"runtime"
	"strings"
	"testing"
)

func TestVerifyImageAcceptsRealJPEG(t *testing.T) {
	data := makeJPEG(t, 64, 48)
	if err := VerifyImage(imageOf(data, 64, 48)); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyImageRules(t *testing.T) {
	good := makeJPEG(t, 32, 24)
	big := makeJPEG(t, 1025, 8)
	truncated := good[:len(good)-40]
	cases := []struct {
		name string
		img  func() *Image
		code string
	}{
		{"media type", func() *Image { i := imageOf(good, 32, 24); i.MediaType = "image/png"; return i }, CodeImageJPEG},
		{"newline in base64", func() *Image {
			i := imageOf(good, 32, 24)
			i.DataBase64 = i.DataBase64[:8] + "\n" + i.DataBase64[8:len(i.DataBase64)-1]
			return i
		}, CodeImageBase64},
		{"url alphabet", func() *Image { i := imageOf(good, 32, 24); i.DataBase64 = strings.Repeat("-_", 8); return i }, CodeImageBase64},
		{"unpadded", func() *Image { i := imageOf(good, 32, 24); i.DataBase64 = i.DataBase64[:len(i.DataBase64)-1]; return i }, CodeImageBase64},
		{"padding inside", func() *Image { i := imageOf(good, 32, 24); i.DataBase64 = "AA==" + i.DataBase64; return i }, CodeImageBase64},
		{"encoded too long", func() *Image {
			i := imageOf(good, 32, 24)
			i.DataBase64 = base64.StdEncoding.EncodeToString(make([]byte, MaxImageBytes+3))
			return i
		}, CodeImageSize},
		{"byte count", func() *Image { i := imageOf(good, 32, 24); i.ByteCount++; return i }, CodeImageIntegrity},
		{"sha256", func() *Image { i := imageOf(good, 32, 24); i.SHA256 = strings.Repeat("0", 64); return i }, CodeImageIntegrity},
		{"png bytes", func() *Image { return imageOf([]byte("\x89PNG\r\n\x1a\n0000000000"), 32, 24) }, CodeImageJPEG},
		{"no frame header", func() *Image { return imageOf([]byte{0xFF, 0xD8, 0xFF, 0xD9}, 2, 3) }, CodeImageJPEG},
		{"declared width", func() *Image { return imageOf(good, 31, 24) }, CodeImageDimensions},
		{"declared height", func() *Image { return imageOf(good, 32, 25) }, CodeImageDimensions},
		{"over 1024 px", func() *Image { return imageOf(big, 1025, 8) }, CodeImageDimensions},
		{"corrupt scan", func() *Image { return imageOf(truncated, 32, 24) }, CodeImageJPEG},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := VerifyImage(c.img())
			wantCode(t, err, c.code)
			if err != nil && len(err.Error()) > MaxMessageLen+64 {
				t.Errorf("message not bounded: %d bytes", len(err.Error()))
			}
		})
	}
}

// A 200-byte file claiming 60000×60000 px must be refused from its header,
// before any decode: its cost must not grow with the claimed size.
func TestVerifyImageForgedHugeDimensionsCostsNothing(t *testing.T) {
	forged := []byte{0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x11, 0x08, 0xEA, 0x60, 0xEA, 0x60, 0x03,
		0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01}
	forged = append(forged, make([]byte, 200-len(forged)-2)...)
	forged = append(forged, 0xFF, 0xD9)
	img := imageOf(forged, 60000, 60000)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	err := VerifyImage(img)
	runtime.ReadMemStats(&after)
	wantCode(t, err, CodeImageDimensions)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<10 {
		t.Errorf("verifying a forged 200-byte header allocated %d bytes", alloc)
	}
}

func TestVerifyImageNeverEchoesData(t *testing.T) {
	canary := "Q0FOQVJZLWltYWdlLWJ5dGVz" // base64 of "CANARY-image-bytes"
	for _, b64 := range []string{canary, canary + "\n", canary[:10], "!" + canary} {
		img := &Image{MediaType: MediaTypeJPEG, DataBase64: b64, ByteCount: 18, SHA256: strings.Repeat("a", 64), PixelWidth: 1, PixelHeight: 1}
		err := VerifyImage(img)
		if err == nil {
			t.Fatal("accepted a non-JPEG")
		}
		if strings.Contains(err.Error(), "CANARY") || strings.Contains(err.Error(), canary[:10]) {
			t.Errorf("error echoes image data: %v", err)
		}
	}
}

func TestJPEGDimensionsSkipsSegments(t *testing.T) {
	data := makeJPEG(t, 40, 30)
	// Insert an APP1 segment and fill bytes before the frame header.
	withApp := append([]byte{0xFF, 0xD8, 0xFF, 0xFF, 0xE1, 0x00, 0x04, 'a', 'b'}, data[2:]...)
	w, h, err := JPEGDimensions(withApp)
	if err != nil || w != 40 || h != 30 {
		t.Fatalf("got %d×%d, %v", w, h, err)
	}
	for _, bad := range [][]byte{nil, {0xFF}, {0xFF, 0xD8, 0xFF, 0xE0, 0xFF, 0xFF}, {0xFF, 0xD8, 0x00, 0x00}} {
		if _, _, err := JPEGDimensions(bad); err == nil {
			t.Errorf("accepted % x", bad)
		}
	}
}
