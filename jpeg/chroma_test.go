package jpeg

import (
	"image"
	"testing"
)

// sofSampling returns the luma sampling factors of a baseline JPEG.
func sofSampling(t *testing.T, data []byte) (int, int) {
	t.Helper()
	for i := 2; i+9 < len(data); {
		if data[i] != 0xFF {
			t.Fatal("lost marker sync")
		}
		m := data[i+1]
		if m == 0xC0 || m == 0xC1 || m == 0xC2 {
			f := data[i+11] // first component's sampling byte
			return int(f >> 4), int(f & 15)
		}
		i += 2 + (int(data[i+2])<<8 | int(data[i+3]))
	}
	t.Fatal("no SOF")
	return 0, 0
}

// A 4:2:2 source keeps its chroma rows only where the budget affords a
// high quality; a hard one is coded 4:2:0 so the luma gets the bytes.
func TestChromaFollowsTheQuality(t *testing.T) {
	cases := []struct {
		name   string
		noise  float64
		wantVs int
	}{
		{"easy picture, high quality", 0, 1},
		{"noisy picture, low quality", 24, 2},
	}
	for _, c := range cases {
		m := subsample(photo(1024, 768, c.noise, 5), image.YCbCrSubsampleRatio422)
		res, err := Encode(m, nil)
		if err != nil {
			t.Fatal(err)
		}
		hs, vs := sofSampling(t, res.Data)
		if hs != 2 || vs != c.wantVs {
			t.Errorf("%s (quality %d): sampling %dx%d, want 2x%d", c.name, res.Quality, hs, vs, c.wantVs)
		}
	}
	// A 4:2:0 source never gains chroma rows.
	res, err := Encode(subsample(photo(1024, 768, 0, 5), image.YCbCrSubsampleRatio420), nil)
	if err != nil {
		t.Fatal(err)
	}
	if hs, vs := sofSampling(t, res.Data); hs != 2 || vs != 2 {
		t.Errorf("4:2:0 source coded %dx%d", hs, vs)
	}
}
