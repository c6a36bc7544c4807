package main

import (
	"fmt"
	"image"
	_ "image/jpeg" // outputs under test
	_ "image/png"  // references
	"math"
	"os"
)

// ssimCmd prints the SSIM of OUT against REF (same size) on luma: Wang et
// al. 2004 with an 11-tap Gaussian window (σ 1.5), K1 0.01, K2 0.03,
// averaged over the windows that fit inside the picture. Luma only,
// because that is what the usual SSIM figures quote and what chroma
// subsampling choices would otherwise blur.
func ssimCmd(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: photobench ssim REF OUT")
	}
	a, err := lumaOf(args[0])
	if err != nil {
		return err
	}
	b, err := lumaOf(args[1])
	if err != nil {
		return err
	}
	if a.w != b.w || a.h != b.h {
		return fmt.Errorf("sizes differ: %dx%d and %dx%d", a.w, a.h, b.w, b.h)
	}
	fmt.Printf("%.5f\n", ssim(a, b))
	return nil
}

type lumaPlane struct {
	w, h int
	v    []float64
}

func lumaOf(path string) (lumaPlane, error) {
	img, err := decodeFile(path)
	if err != nil {
		return lumaPlane{}, err
	}
	r := img.Bounds()
	p := lumaPlane{w: r.Dx(), h: r.Dy(), v: make([]float64, r.Dx()*r.Dy())}
	for y := 0; y < p.h; y++ {
		for x := 0; x < p.w; x++ {
			R, G, B, _ := img.At(r.Min.X+x, r.Min.Y+y).RGBA()
			p.v[y*p.w+x] = (0.299*float64(R) + 0.587*float64(G) + 0.114*float64(B)) / 257
		}
	}
	return p, nil
}

// blur filters v (w x h) with the separable window, keeping only the
// positions where the whole window fits: (w-10) x (h-10).
func blur(v []float64, w, h int, k []float64) ([]float64, int, int) {
	n := len(k)
	ow, oh := w-n+1, h-n+1
	tmp := make([]float64, ow*h)
	for y := 0; y < h; y++ {
		for x := 0; x < ow; x++ {
			var s float64
			for i, c := range k {
				s += c * v[y*w+x+i]
			}
			tmp[y*ow+x] = s
		}
	}
	out := make([]float64, ow*oh)
	for y := 0; y < oh; y++ {
		for x := 0; x < ow; x++ {
			var s float64
			for i, c := range k {
				s += c * tmp[(y+i)*ow+x]
			}
			out[y*ow+x] = s
		}
	}
	return out, ow, oh
}

func ssim(a, b lumaPlane) float64 {
	k := make([]float64, 11)
	var sum float64
	for i := range k {
		d := float64(i - 5)
		k[i] = math.Exp(-d * d / (2 * 1.5 * 1.5))
		sum += k[i]
	}
	for i := range k {
		k[i] /= sum
	}
	n := len(a.v)
	aa, bb, ab := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range a.v {
		aa[i], bb[i], ab[i] = a.v[i]*a.v[i], b.v[i]*b.v[i], a.v[i]*b.v[i]
	}
	mx, w, h := blur(a.v, a.w, a.h, k)
	my, _, _ := blur(b.v, a.w, a.h, k)
	sxx, _, _ := blur(aa, a.w, a.h, k)
	syy, _, _ := blur(bb, a.w, a.h, k)
	sxy, _, _ := blur(ab, a.w, a.h, k)
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	var total float64
	for i := 0; i < w*h; i++ {
		vx, vy, cxy := sxx[i]-mx[i]*mx[i], syy[i]-my[i]*my[i], sxy[i]-mx[i]*my[i]
		total += (2*mx[i]*my[i] + c1) * (2*cxy + c2) / ((mx[i]*mx[i] + my[i]*my[i] + c1) * (vx + vy + c2))
	}
	return total / float64(w*h)
}

// decodeFile decodes the PNG or JPEG at path.
func decodeFile(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
