package jpeg

import "math"

// The quality search's first full-size encode is aimed with a cheap
// estimate: the same search run on every sampleEvery-th MCU row of the
// picture, a stratified sample whose coded size per row tracks the whole
// picture's. Each sample trial costs 1/sampleEvery of a full one, so a
// wallpaper that needed three to five full encodes from a fixed first
// guess needs one or two plus under one in samples (bench/photo.sh).
const (
	sampleEvery = 4
	// sampleMinRows: below this many MCU rows the sample is too coarse to
	// beat the fixed guess.
	sampleMinRows = 24
	// headerBytes approximates what a file spends regardless of its
	// size: markers, quantization and optimized Huffman tables.
	headerBytes = 600
	// sampleBias: full encodes came out this much larger than their
	// sample predicted (mean over mate-backgrounds' photos and the
	// synthetic camera frames, spread ±1.6%).
	sampleBias = 1.024
	// sampleTrials caps the sample search: the estimate's own error
	// (±2%) makes a closer fit on the sample pointless.
	sampleTrials = 3
)

// sampleFrame returns every sampleEvery-th MCU row of the encoder frame f
// (as newEncodeFrame lays it out) and the fraction of f's rows it holds,
// or nil when f is too short to sample.
func sampleFrame(f *frame) (*frame, float64) {
	vs := max(f.vs, 1)
	band := 8 * vs // luma rows per MCU row
	rows := (f.h + band - 1) / band
	if rows < sampleMinRows {
		return nil, 0
	}
	keep := (rows + sampleEvery - 1) / sampleEvery
	s := newEncodeFrame(f.w, keep*band, f.n, sampling{max(f.hs, 1), vs})
	for c := 0; c < f.n; c++ {
		src, dst := f.p[c], s.p[c]
		bh := band
		if c > 0 {
			bh = 8
		}
		for i := 0; i < keep; i++ {
			from := i * sampleEvery * bh * src.stride
			copy(dst.pix[i*bh*dst.stride:(i+1)*bh*dst.stride], src.pix[from:from+bh*src.stride])
		}
	}
	return s, float64(keep) / float64(rows)
}

// estimateScale searches the scale on a sample of f for the budget scaled
// to the sample, then solves for the full picture's target through the
// sample trials nearest it (log-log: size ≈ c·scale^-α, α measured), and
// returns that scale and α (ok false when f is too small to sample or the
// trials cannot be interpolated). encodes counts the sample trials.
func estimateScale(f *frame, budget int, start, limit float64) (scale, alpha float64, encodes int, ok bool) {
	s, frac := sampleFrame(f)
	if s == nil {
		return 0, 0, 0, false
	}
	// Aim the full encode at the middle of searchScale's acceptance band.
	want := float64(budget) * (1 - searchTol/2) / sampleBias
	sb := int((want-headerBytes)*frac + headerBytes)
	type trial struct{ s, n float64 }
	var trials []trial
	sr, err := searchScale(sb, start, limit, 0, sampleTrials, func(sc float64) ([]byte, error) {
		data, err := encodeTurbo(s, tablesAt(sc), false)
		if err == nil {
			trials = append(trials, trial{sc, (float64(len(data))-headerBytes)/frac + headerBytes})
		}
		return data, err
	})
	if err != nil || len(trials) < 2 {
		return 0, 0, sr.encodes, false
	}
	// The two trials closest to want in log size: a bracket when there is
	// one, else the nearest pair (extrapolation).
	dist := func(t trial) float64 { return math.Abs(math.Log(t.n / want)) }
	a, b := trials[0], trials[1]
	if dist(b) < dist(a) {
		a, b = b, a
	}
	for _, t := range trials[2:] {
		switch {
		case dist(t) < dist(a):
			a, b = t, a
		case dist(t) < dist(b):
			b = t
		}
	}
	if a.s == b.s || a.n == b.n {
		return 0, 0, sr.encodes, false
	}
	alpha = -math.Log(a.n/b.n) / math.Log(a.s/b.s)
	if alpha < 0.3 || alpha > 3 {
		return 0, 0, sr.encodes, false
	}
	scale = a.s * math.Pow(a.n/want, 1/alpha)
	return min(max(scale, scaleMin), limit), alpha, sr.encodes, true
}

// reaimScale corrects scale, estimated for another version of f (its
// chroma resolution changed), with one sample trial and the exponent alpha
// measured before. It returns the new scale and the trials spent (0 when f
// is too small to sample: scale is returned unchanged).
func reaimScale(f *frame, budget int, scale, alpha, limit float64) (float64, int) {
	s, frac := sampleFrame(f)
	if s == nil || alpha <= 0 {
		return scale, 0
	}
	data, err := encodeTurbo(s, tablesAt(scale), false)
	if err != nil {
		return scale, 1 // the full search will meet the same error and report it
	}
	want := float64(budget) * (1 - searchTol/2) / sampleBias
	pred := (float64(len(data))-headerBytes)/frac + headerBytes
	return min(max(scale*math.Pow(pred/want, 1/alpha), scaleMin), limit), 1
}
