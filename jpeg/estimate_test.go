package jpeg

import (
	"bytes"
	"image"
	"testing"
)

// The sample holds every sampleEvery-th MCU row of each plane, unchanged.
func TestSampleFrame(t *testing.T) {
	f := resample(fromImage(photo(640, 480, 3, 7)), 640, 480, 1, s420)
	s, frac := sampleFrame(f)
	if s == nil {
		t.Fatal("no sample of a 30-row frame")
	}
	if rows := (480 + 15) / 16; frac != float64((rows+sampleEvery-1)/sampleEvery)/float64(rows) {
		t.Errorf("fraction %v", frac)
	}
	for c := 0; c < 3; c++ {
		bh := 16
		if c > 0 {
			bh = 8
		}
		src, dst := f.p[c], s.p[c]
		for i := 0; i*bh < dst.h; i++ {
			for y := 0; y < bh; y++ {
				want := src.pix[(i*sampleEvery*bh+y)*src.stride:][:src.stride]
				got := dst.pix[(i*bh+y)*dst.stride:][:dst.stride]
				if !bytes.Equal(want, got) {
					t.Fatalf("plane %d band %d row %d differs", c, i, y)
				}
			}
		}
	}
	if s, _ := sampleFrame(resample(fromImage(photo(64, 64, 3, 7)), 64, 64, 1, s420)); s != nil {
		t.Error("sampled a 4-row frame")
	}
}

// The estimate lands the first full encode near the budget, and Encode
// needs fewer full-size encodes with it than the fixed first guess did.
func TestEstimateAimsTheFirstEncode(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		m := subsample(photo(1024, 768, 2+float64(seed)*2, seed), image.YCbCrSubsampleRatio420)
		f := resample(fromImage(m), 1024, 768, 1, s420)
		est, _, n, ok := estimateScale(f, 61440, scaleOf(80), scaleMax)
		if !ok || n > sampleTrials {
			t.Fatalf("seed %d: estimate ok=%v after %d sample encodes", seed, ok, n)
		}
		data, err := encodeTurbo(f, tablesAt(est), false)
		if err != nil {
			t.Fatal(err)
		}
		if r := float64(len(data)) / 61440; r < 0.93 || r > 1.07 {
			t.Errorf("seed %d: first full encode at %.3f of the budget (q%d)", seed, r, qualityOf(est))
		}
		res, err := Encode(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Encodes > 3 || res.SampleEncodes == 0 {
			t.Errorf("seed %d: %d full and %d sample encodes", seed, res.Encodes, res.SampleEncodes)
		}
	}
}
