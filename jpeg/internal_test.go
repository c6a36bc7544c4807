package jpeg

import (
	"encoding/binary"
	"image"
	"math"
	"testing"
)

// psnrPlane compares two planes of equal size.
func psnrPlane(a, b plane) float64 {
	var se float64
	for y := 0; y < a.h; y++ {
		for x := 0; x < a.w; x++ {
			d := float64(a.pix[y*a.stride+x]) - float64(b.pix[y*b.stride+x])
			se += d * d
		}
	}
	if se == 0 {
		return math.Inf(1)
	}
	return 10 * math.Log10(255*255/(se/float64(a.w*a.h)))
}

// Every DCT scale and every input kind decodes to the sizes libjpeg
// documents, and the progressive compact store (with early stop) gives the
// same picture as a full decode, to within its tolerance.
func TestDecodeScales(t *testing.T) {
	p := photo(1003, 757, 2, 20)
	inputs := map[string][]byte{
		"baseline420":    stdJPEG(t, p, 92),
		"progressive420": progressiveJPEG(t, p, s420),
		"progressive422": progressiveJPEG(t, subsample(p, image.YCbCrSubsampleRatio422), s422),
		"progressive444": progressiveJPEG(t, p, s444),
		"gray":           stdJPEG(t, image.NewGray(image.Rect(0, 0, 1003, 757)), 92),
	}
	for name, data := range inputs {
		full, info, err := decodeTurbo(data, decodeOpts{k: 8, maxErr: -1, maxScans: 100, maxPixels: 1e8})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if full.w != 1003 || full.h != 757 || info.width != 1003 || info.height != 757 {
			t.Fatalf("%s: full decode %dx%d", name, full.w, full.h)
		}
		for _, k := range []int{1, 2, 4} {
			exact, _, err := decodeTurbo(data, decodeOpts{k: k, maxErr: -1, maxScans: 100, maxPixels: 1e8})
			if err != nil {
				t.Fatalf("%s k=%d: %v", name, k, err)
			}
			early, einfo, err := decodeTurbo(data, decodeOpts{k: k, maxErr: progressiveMaxErr, maxScans: 100, maxPixels: 1e8})
			if err != nil {
				t.Fatalf("%s k=%d: %v", name, k, err)
			}
			if w, h := (1003*k+7)/8, (757*k+7)/8; exact.w != w || exact.h != h || early.w != w || early.h != h {
				t.Fatalf("%s k=%d: %dx%d, want %dx%d", name, k, exact.w, exact.h, w, h)
			}
			// The k/8 decode must look like the full decode scaled down.
			ref := resizePlane(full.p[0], exact.w, exact.h, halved{})
			if q := psnrPlane(ref, exact.p[0]); q < 30 {
				t.Errorf("%s k=%d: scaled decode is %.1f dB from the downscaled full decode", name, k, q)
			}
			if q := psnrPlane(exact.p[0], early.p[0]); q < 45 {
				t.Errorf("%s k=%d: early stop after %d scans costs %.1f dB", name, k, einfo.scans, q)
			}
		}
	}
}

// Early stop must skip scans on a progressive file: that is its point.
func TestProgressiveEarlyStop(t *testing.T) {
	data := progressiveJPEG(t, photo(1600, 1200, 1, 21), s420)
	_, all, err := decodeTurbo(data, decodeOpts{k: 1, maxErr: -1, maxScans: 100, maxPixels: 1e8})
	if err != nil {
		t.Fatal(err)
	}
	_, early, err := decodeTurbo(data, decodeOpts{k: 1, maxErr: progressiveMaxErr, maxScans: 100, maxPixels: 1e8})
	if err != nil {
		t.Fatal(err)
	}
	if !all.progressive || early.scans >= all.scans {
		t.Errorf("k=1 decoded %d of %d scans", early.scans, all.scans)
	}
	if _, _, err := decodeTurbo(data, decodeOpts{k: 8, maxErr: -1, maxScans: 3, maxPixels: 1e8}); err == nil {
		t.Error("scan limit not enforced")
	}
	if _, _, err := decodeTurbo(data, decodeOpts{k: 9, maxErr: -1, maxScans: 100, maxPixels: 1e8}); err == nil {
		t.Error("k=9 accepted")
	}
}

func TestDCTScaleIsPowerOfTwo(t *testing.T) {
	cases := []struct{ w, h, tw, th, k int }{
		{5640, 3172, 1024, 576, 2}, {1680, 1050, 1024, 640, 8}, {2560, 1600, 1024, 640, 8},
		{4056, 3040, 1024, 768, 4}, {8192, 8192, 1024, 1024, 2}, {800, 600, 800, 600, 8},
		{4096, 100, 1024, 25, 4}, {3840, 2160, 1024, 576, 4},
	}
	for _, c := range cases {
		if k := dctScale(c.w, c.h, c.tw, c.th); k != c.k {
			t.Errorf("%dx%d -> %dx%d: k=%d, want %d", c.w, c.h, c.tw, c.th, k, c.k)
		}
	}
}

func TestResizeKeepsFlatAndLevels(t *testing.T) {
	for _, dims := range [][4]int{{1000, 700, 333, 222}, {64, 64, 64, 30}, {5, 3, 1, 1}, {7, 9, 20, 20}, {3000, 2, 1024, 1}} {
		src := plane{w: dims[0], h: dims[1], stride: dims[0] + 5, pix: make([]byte, (dims[0]+5)*dims[1])}
		for i := range src.pix {
			src.pix[i] = 173
		}
		out := resizePlane(src, dims[2], dims[3], halved{})
		for i, v := range out.pix {
			if v != 173 {
				t.Fatalf("%v: flat plane changed to %d at %d", dims, v, i)
			}
		}
	}
	// A horizontal ramp stays a monotone ramp with its ends near the ends.
	src := plane{w: 2000, h: 4, stride: 2000, pix: make([]byte, 8000)}
	for y := 0; y < 4; y++ {
		for x := 0; x < 2000; x++ {
			src.pix[y*2000+x] = byte(x * 255 / 1999)
		}
	}
	out := resizePlane(src, 300, 4, halved{})
	for x := 1; x < 300; x++ {
		if out.pix[x] < out.pix[x-1] {
			t.Fatalf("ramp not monotone at %d", x)
		}
	}
	if out.pix[0] > 3 || out.pix[299] < 252 {
		t.Errorf("ramp ends %d..%d", out.pix[0], out.pix[299])
	}
	for _, k := range []kernel{makeKernel(1000, 333, 0), makeKernel(10, 1000, 0), makeKernel(3, 1, 0)} {
		for i := range k.start {
			var sum int32
			for _, w := range k.w[i*k.n : (i+1)*k.n] {
				sum += w
			}
			if sum != weightOne || k.start[i] < 0 {
				t.Fatalf("kernel row %d sums to %d, starts at %d", i, sum, k.start[i])
			}
		}
	}
}

func TestOrientInto(t *testing.T) {
	// 3x2 source:  a b c / d e f
	src := plane{w: 3, h: 2, stride: 3, pix: []byte("abcdef")}
	want := map[int]string{
		1: "abcdef", 2: "cbafed", 3: "fedcba", 4: "defabc",
		5: "adbecf", 6: "daebfc", 7: "fcebda", 8: "cfbead",
	}
	for o, w := range want {
		dw, dh := 3, 2
		if transposes(o) {
			dw, dh = 2, 3
		}
		dst := plane{w: dw, h: dh, stride: dw, pix: make([]byte, 6)}
		orientInto(&dst, src, o)
		if string(dst.pix) != w {
			t.Errorf("orientation %d: %q, want %q", o, dst.pix, w)
		}
	}
}

func TestEXIFOrientationParser(t *testing.T) {
	for _, bo := range []binaryOrder{littleEndian, bigEndian} {
		for o := 1; o <= 8; o++ {
			seg := exifOrientationSegment(o, bo.order)
			if got := exifOrientation(seg[4:]); got != o {
				t.Errorf("%s %d: got %d", bo.name, o, got)
			}
		}
	}
	good := exifOrientationSegment(6, binary.BigEndian)[4:]
	bad := map[string][]byte{
		"short":      good[:10],
		"no-magic":   append([]byte("Exif\x00\x01"), good[6:]...),
		"bad-order":  append([]byte("Exif\x00\x00XX"), good[8:]...),
		"value-9":    patch(good, 6+18, 0, 9),
		"wrong-type": patch(good, 6+12, 0, 4),
		"ifd-oob":    patch(good, 6+4, 0xFF, 0xFF, 0xFF, 0xF0),
		"other-tag":  patch(good, 6+10, 0x01, 0x11),
	}
	for name, seg := range bad {
		if got := exifOrientation(seg); got != 0 {
			t.Errorf("%s: got %d", name, got)
		}
	}
}

func patch(b []byte, at int, v ...byte) []byte {
	out := append([]byte{}, b...)
	copy(out[at:], v)
	return out
}

// The search against a synthetic size curve with quantization plateaus.
func TestSearchScale(t *testing.T) {
	for _, alpha := range []float64{0.6, 0.9, 1.3} {
		for _, c := range []float64{2e5, 2e6, 5e7} {
			size := func(s float64) int {
				s = math.Round(s*4) / 4 // plateaus, like integer tables
				return int(c / math.Pow(s, alpha))
			}
			res, err := searchScale(61440, 40, scaleMax, 0, maxTrials, func(s float64) ([]byte, error) {
				return make([]byte, size(s)), nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if !res.fits {
				if size(scaleMax) <= 61440 {
					t.Errorf("alpha %.1f c %.0f: gave up though %d fits at the limit", alpha, c, size(scaleMax))
				}
				continue
			}
			if len(res.data) > 61440 {
				t.Fatalf("over budget")
			}
			if len(res.data) < 61440*95/100 && res.scale > scaleMin {
				t.Errorf("alpha %.1f c %.0f: %d bytes after %d encodes", alpha, c, len(res.data), res.encodes)
			}
			if res.encodes > 6 {
				t.Errorf("alpha %.1f c %.0f: %d encodes", alpha, c, res.encodes)
			}
		}
	}
	res, _ := searchScale(61440, 40, 100, 0, maxTrials, func(s float64) ([]byte, error) { return make([]byte, 1e6), nil })
	if res.fits || res.over != 1e6 {
		t.Errorf("unfittable: %+v", res)
	}
}

func TestQualityScaleRoundTrip(t *testing.T) {
	for q := 1; q <= 100; q++ {
		if got := qualityOf(scaleOf(q)); got != q {
			t.Errorf("quality %d -> %d", q, got)
		}
	}
	for _, tb := range tablesAt(scaleMin) {
		for _, v := range tb {
			if v != 1 {
				t.Fatal("scaleMin does not reach all-ones tables")
			}
		}
	}
	for _, tb := range tablesAt(scaleMax) {
		for _, v := range tb {
			if v < 1 || v > 255 {
				t.Fatal("table entry outside 1..255")
			}
		}
	}
}

func TestY4MLimitedRange(t *testing.T) {
	hdr := "YUV4MPEG2 W2 H2 C444 XCOLORRANGE=LIMITED\nFRAME\n"
	data := append([]byte(hdr), 16, 235, 126, 16, 128, 240, 16, 128, 128, 128, 128, 128)
	f, err := parseY4M(data, 100)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.p[0].pix[:4]) != string([]byte{0, 255, 128, 0}) || string(f.p[1].pix[:4]) != string([]byte{128, 255, 0, 128}) {
		t.Errorf("luma %v cb %v", f.p[0].pix[:4], f.p[1].pix[:4])
	}
}
