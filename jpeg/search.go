package jpeg

import "math"

// annexK holds the quantization tables of ITU-T T.81 Annex K (luminance,
// chrominance; natural order).
var annexK = [2][64]uint16{
	{
		16, 11, 10, 16, 24, 40, 51, 61,
		12, 12, 14, 19, 26, 58, 60, 55,
		14, 13, 16, 24, 40, 57, 69, 56,
		14, 17, 22, 29, 51, 87, 80, 62,
		18, 22, 37, 56, 68, 109, 103, 77,
		24, 35, 55, 64, 81, 104, 113, 92,
		49, 64, 78, 87, 103, 121, 120, 101,
		72, 92, 95, 98, 112, 100, 103, 99,
	},
	{
		17, 18, 24, 47, 99, 99, 99, 99,
		18, 21, 26, 66, 99, 99, 99, 99,
		24, 26, 56, 99, 99, 99, 99, 99,
		47, 66, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
		99, 99, 99, 99, 99, 99, 99, 99,
	},
}

// Scale factors in libjpeg's percent units: quality 100 is 0, 50 is 100,
// 1 is 5000. Below scaleMin every entry is already 1.
const (
	scaleMin = 0.5
	scaleMax = 5000
)

// baseTables are the Annex K tables flattened halfway (in the log domain)
// toward a uniform table: entry = ref * (annexK/ref)^0.5 with ref the DC
// entry. Annex K weights high frequencies for a human at six picture
// heights; a vision model reading the photo, and PSNR, reward keeping
// detail: bench/photo.sh measured +0.7 dB on average at the same bytes.
// Flattening further (exponent 0.3) gained only 0.2 dB more; stopping
// halfway keeps part of Annex K's perceptual weighting. The few entries
// finer than the DC (the lowest horizontal and vertical frequencies of
// luma) stay as Annex K has them rather than being pulled up to the DC:
// coarser, they showed as the worst butteraugli spot in dark smooth
// backgrounds (YellowFlower 2.65, above ImageMagick's 2.63 and libvips'
// 2.56; kept finer, 2.37), for a few bytes that the search takes back
// from the high frequencies.
// The tables are scaled as libjpeg's jpeg_set_quality does, by a real
// factor so the search lands closer to the budget than integer qualities.
var baseTables = func() (t [2][64]uint16) {
	for i, ref := range [2]float64{16, 17} {
		for j, b := range annexK[i] {
			v := float64(b)
			if v > ref {
				v = ref * math.Sqrt(v/ref)
			}
			t[i][j] = uint16(math.Max(1, math.Round(v)))
		}
	}
	return t
}()

func tablesAt(s float64) *[2][64]uint16 {
	var t [2][64]uint16
	for i := range t {
		for j, b := range baseTables[i] {
			v := math.Round(float64(b) * s / 100)
			t[i][j] = uint16(min(max(v, 1), 255))
		}
	}
	return &t
}

// qualityOf maps a scale factor back to libjpeg's 1..100 quality scale.
func qualityOf(s float64) int {
	var q float64
	if s <= 100 {
		q = (200 - s) / 2
	} else {
		q = 5000 / s
	}
	return int(min(max(math.Round(q), 1), 100))
}

func scaleOf(quality int) float64 {
	if quality < 50 {
		return 5000 / float64(quality)
	}
	return float64(200 - 2*quality)
}

// searchTol: the search stops within this fraction under the budget
// (≈0.2 dB). It was 3 %: the sampled estimate (estimate.go) aims the first
// full encode at the middle of the band and lands within about ±2.5 %, so
// with 3 % a first encode at 96.9 % of the budget (Storm, GreenMeadow)
// cost a second full encode for 1 % more bytes; at 4 % most photos need
// one. sizeExponent: file size falls roughly as the scale factor to this
// power before two trials measure it.
const (
	searchTol    = 0.04
	sizeExponent = 0.85
)

// searchResult is the best encoding found under a byte budget.
type searchResult struct {
	data    []byte
	scale   float64
	encodes int
	fits    bool
	over    int // size at the limit scale when nothing fitted
}

// searchScale finds the smallest scale factor (highest quality) in
// [scaleMin, limit] whose encoding fits budget. File size falls roughly as
// a power of the scale factor (exponent 0.7..1.2 measured), so each step
// solves that model: through the bracket of known fit and known overflow
// once there is one, else through the last two trials. It stops within
// searchTol under the budget, when the bracket is narrower than the
// integer tables resolve, or after maxTrials encodes. alpha0 is the
// exponent to assume before two trials measure it (0: sizeExponent). When even limit
// overflows it returns at once with fits false and that size, so the
// caller can shrink the picture instead.
func searchScale(budget int, start, limit, alpha0 float64, maxTrials int, encode func(s float64) ([]byte, error)) (searchResult, error) {
	const tol = searchTol
	target := float64(budget) * (1 - tol/2)
	var res searchResult
	sFit, nFit := math.Inf(1), 0.0
	sOver, nOver := 0.0, 0.0
	s := min(start, limit)
	var prevS, prevN float64
	for res.encodes < maxTrials {
		data, err := encode(s)
		if err != nil {
			return res, err
		}
		res.encodes++
		n := float64(len(data))
		if len(data) <= budget {
			if s < sFit {
				sFit, nFit, res.data, res.scale, res.fits = s, n, data, s, true
			}
		} else if s > sOver {
			sOver, nOver = s, n
		}
		switch {
		case res.fits && nFit >= float64(budget)*(1-tol):
			return res, nil
		case res.fits && sFit <= scaleMin:
			return res, nil // best quality fits
		case !res.fits && sOver >= limit:
			res.over = len(data)
			return res, nil // nothing fits at this size
		case res.fits && sOver > 0 && sFit/sOver < 1.01:
			return res, nil
		}
		var next float64
		if res.fits && sOver > 0 {
			// Interpolate in the bracket (log-log).
			a := math.Log(nOver/nFit) / math.Log(sFit/sOver)
			next = sOver * math.Pow(nOver/target, 1/max(a, 0.2))
		} else {
			alpha := sizeExponent
			if alpha0 > 0 {
				alpha = alpha0
			}
			if prevS > 0 && prevS != s && prevN > 0 && n > 0 && prevN != n {
				if a := -math.Log(n/prevN) / math.Log(s/prevS); a > 0.3 && a < 2 {
					alpha = a
				}
			}
			next = s * math.Pow(n/target, 1/alpha)
			// Quantization plateaus make tiny steps useless: move at
			// least 2% until the budget is bracketed.
			if next < s && next > s*0.98 {
				next = s * 0.98
			} else if next > s && next < s*1.02 {
				next = s * 1.02
			}
		}
		prevS, prevN = s, n
		if math.IsNaN(next) || math.IsInf(next, 0) {
			next = s
		}
		if (sOver > 0 && next <= sOver) || (res.fits && next >= sFit) {
			next = math.Sqrt(max(sOver, scaleMin) * min(sFit, limit))
		}
		s = min(max(next, scaleMin), limit)
	}
	return res, nil
}
