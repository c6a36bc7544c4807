package jpeg

import (
	"bytes"
	"image"
	stdjpeg "image/jpeg"
	"testing"
)

// Options.Orientation turns a camera's picture as the camera was mounted:
// the dark left half of a 64x32 picture ends up where the EXIF value puts
// it, and quarter turns swap width and height.
func TestEncodeOrientation(t *testing.T) {
	src := image.NewYCbCr(image.Rect(0, 0, 64, 32), image.YCbCrSubsampleRatio420)
	for y := 0; y < 32; y++ {
		for x := 0; x < 64; x++ {
			src.Y[y*src.YStride+x] = 230
			if x < 32 {
				src.Y[y*src.YStride+x] = 20
			}
		}
	}
	for i := range src.Cb {
		src.Cb[i], src.Cr[i] = 128, 128
	}
	// Where the dark half lands: left, right, top or bottom.
	for o, want := range map[int]string{0: "left", 1: "left", 2: "right", 3: "right", 4: "left", 5: "top", 6: "top", 7: "bottom", 8: "bottom"} {
		res, err := Encode(src, &Options{Orientation: o})
		if err != nil {
			t.Fatal(err)
		}
		img, err := stdjpeg.Decode(bytes.NewReader(res.Data))
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		quarter := o >= 5
		if quarter != (b.Dx() == 32 && b.Dy() == 64) || !quarter && (b.Dx() != 64 || b.Dy() != 32) {
			t.Errorf("orientation %d: %v", o, b)
			continue
		}
		luma := func(x, y int) uint32 { r, _, _, _ := img.At(x, y).RGBA(); return r >> 8 }
		w, h := b.Dx(), b.Dy()
		got := map[bool]string{true: "left", false: "right"}[luma(2, h/2) < luma(w-3, h/2)]
		if quarter {
			got = map[bool]string{true: "top", false: "bottom"}[luma(w/2, 2) < luma(w/2, h-3)]
		}
		if got != want {
			t.Errorf("orientation %d: the dark half is at the %s, want %s", o, got, want)
		}
	}
}
