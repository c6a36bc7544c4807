// Command photobench is bench/photo.sh's helper: it makes synthetic camera
// frames and checks encoder outputs against the 0.1 image rules.
//
//	photobench gen -w 1920 -h 1080 -y4m F.y4m -yuv F.yuv
//	photobench check OUT.jpg...
//	photobench time RESULT -- CMD ARGS...   (writes "cpu_seconds peak_rss_kib")
//	photobench ssim REF OUT                 (prints the luma SSIM)
//	photobench encode IN OUT                (jpeg.EncodeFile alone: the encoder without acbridge's start-up)
//	photobench round8 IN OUT.png            (8-bit copy, samples rounded, for butteraugli)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/protocol"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: photobench gen|check|time|ssim|encode|round8 ...")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "gen":
		err = gen(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "time":
		err = timeCmd(os.Args[2:])
	case "ssim":
		err = ssimCmd(os.Args[2:])
	case "encode":
		err = encodeCmd(os.Args[2:])
	case "round8":
		err = round8Cmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "photobench:", err)
		os.Exit(1)
	}
}

// gen writes one synthetic camera frame, 4:2:0 full-range Y'CbCr, as
// YUV4MPEG2 (for acbridge) and as headerless planar YUV (for ImageMagick's
// yuv: reader). The scene mixes what a kiosk camera sees: lit gradients,
// objects with hard and soft edges, fine texture, small print, lens
// vignetting and sensor noise.
func gen(args []string) error {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	w := fs.Int("w", 1920, "width")
	h := fs.Int("h", 1080, "height")
	y4m := fs.String("y4m", "", "YUV4MPEG2 output")
	yuv := fs.String("yuv", "", "raw planar YUV output")
	seed := fs.Uint64("seed", 1, "scene seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	W, H := *w, *h
	rng := rand.New(rand.NewPCG(*seed, 42))
	type blob struct {
		cx, cy, rx, ry, soft float64
		r, g, b              float64
		round                bool
	}
	var blobs []blob
	for i := 0; i < 14; i++ {
		blobs = append(blobs, blob{
			cx: rng.Float64(), cy: 0.2 + 0.7*rng.Float64(),
			rx: 0.03 + 0.12*rng.Float64(), ry: 0.03 + 0.15*rng.Float64(),
			soft: []float64{0.002, 0.01, 0.04}[i%3],
			r:    rng.Float64(), g: rng.Float64(), b: rng.Float64(),
			round: i%2 == 0,
		})
	}
	// Small print: a grid of random bars in a label area.
	const cols, rows = 48, 10
	var glyph [rows][cols]bool
	for r := range glyph {
		for c := range glyph[r] {
			glyph[r][c] = rng.Float64() < 0.45
		}
	}
	Y := make([]byte, W*H)
	Cb := make([]float64, W*H)
	Cr := make([]float64, W*H)
	for y := 0; y < H; y++ {
		fy := float64(y) / float64(H)
		for x := 0; x < W; x++ {
			fx := float64(x) / float64(W)
			// Wall above, table below, warm light from the left.
			r, g, b := 0.55+0.25*(1-fx), 0.52+0.1*(1-fx), 0.48
			if fy > 0.62 {
				grain := 0.04 * math.Sin(fx*900+8*math.Sin(fy*40))
				r, g, b = 0.45+grain, 0.32+grain, 0.2+grain/2
			}
			for _, o := range blobs {
				dx, dy := (fx-o.cx)/o.rx, (fy-o.cy)/o.ry
				var d float64
				if o.round {
					d = math.Sqrt(dx*dx+dy*dy) - 1
				} else {
					d = math.Max(math.Abs(dx), math.Abs(dy)) - 1
				}
				a := clamp01(0.5 - d*o.rx/o.soft)
				if a > 0 {
					// Fabric-like texture on the objects.
					t := 0.06 * math.Sin((fx+fy)*1400) * math.Sin((fx-fy)*1100)
					r = r*(1-a) + (o.r+t)*a
					g = g*(1-a) + (o.g+t)*a
					b = b*(1-a) + (o.b+t)*a
				}
			}
			// A white label with small print.
			if fx > 0.62 && fx < 0.92 && fy > 0.1 && fy < 0.22 {
				r, g, b = 0.93, 0.93, 0.9
				gx := int((fx - 0.63) / 0.28 * cols)
				gy := int((fy - 0.11) / 0.10 * rows)
				if gx >= 0 && gx < cols && gy >= 0 && gy < rows && glyph[gy][gx] {
					sx := math.Mod((fx-0.63)/0.28*cols, 1)
					sy := math.Mod((fy-0.11)/0.10*rows, 1)
					if sx > 0.2 && sx < 0.55 && sy > 0.15 && sy < 0.85 {
						r, g, b = 0.08, 0.08, 0.12
					}
				}
			}
			v := 1 - 0.35*((fx-0.5)*(fx-0.5)+(fy-0.5)*(fy-0.5))
			r, g, b = 255*r*v, 255*g*v, 255*b*v
			yy := 0.299*r + 0.587*g + 0.114*b + 2.0*rng.NormFloat64()
			Y[y*W+x] = byte(math.Round(clamp(yy, 0, 255)))
			Cb[y*W+x] = -0.168736*r - 0.331264*g + 0.5*b + 128 + 1.5*rng.NormFloat64()
			Cr[y*W+x] = 0.5*r - 0.418688*g - 0.081312*b + 128 + 1.5*rng.NormFloat64()
		}
	}
	cw, ch := (W+1)/2, (H+1)/2
	cb, cr := make([]byte, cw*ch), make([]byte, cw*ch)
	for y := 0; y < ch; y++ {
		for x := 0; x < cw; x++ {
			var sb, sr float64
			n := 0.0
			for dy := 0; dy < 2; dy++ {
				for dx := 0; dx < 2; dx++ {
					xx, yy := min(2*x+dx, W-1), min(2*y+dy, H-1)
					sb += Cb[yy*W+xx]
					sr += Cr[yy*W+xx]
					n++
				}
			}
			cb[y*cw+x] = byte(math.Round(clamp(sb/n, 0, 255)))
			cr[y*cw+x] = byte(math.Round(clamp(sr/n, 0, 255)))
		}
	}
	if *y4m != "" {
		hdr := fmt.Sprintf("YUV4MPEG2 W%d H%d F30:1 Ip A1:1 C420jpeg XCOLORRANGE=FULL\nFRAME\n", W, H)
		if err := writeFile(*y4m, []byte(hdr), Y, cb, cr); err != nil {
			return err
		}
	}
	if *yuv != "" {
		if err := writeFile(*yuv, nil, Y, cb, cr); err != nil {
			return err
		}
	}
	return nil
}

func clamp01(v float64) float64 { return clamp(v, 0, 1) }

func clamp(v, lo, hi float64) float64 { return math.Min(math.Max(v, lo), hi) }

func writeFile(path string, parts ...[]byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, p := range parts {
		if _, err := bw.Write(p); err != nil {
			f.Close()
			return err
		}
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// timeCmd runs a command and records its CPU time (user + system, in
// microseconds from rusage, not /usr/bin/time's 10 ms steps) and peak RSS.
func timeCmd(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: photobench time RESULT -- CMD ARGS...")
	}
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", args[2], err)
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return fmt.Errorf("no rusage")
	}
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return os.WriteFile(args[0], []byte(fmt.Sprintf("%.4f %d\n", cpu.Seconds(), ru.Maxrss)), 0o644)
}

// check applies the done-when rules to encoder outputs: ≤ 61,440 bytes,
// ≤ 1,024 px, no APPn or COM segment, and jpeg.Verify.
func check(files []string) error {
	bad := 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if err := checkOne(data); err != nil {
			fmt.Printf("FAIL %s: %v\n", name, err)
			bad++
			continue
		}
		fmt.Printf("ok   %s\n", name)
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d outputs break the rules", bad, len(files))
	}
	return nil
}

func checkOne(data []byte) error {
	if len(data) > protocol.MaxImageBytes {
		return fmt.Errorf("%d bytes", len(data))
	}
	if err := jpeg.CheckMetadataFree(data); err != nil {
		return err
	}
	img, err := jpeg.Describe(data)
	if err != nil {
		return err
	}
	if img.PixelWidth > protocol.MaxImagePixels || img.PixelHeight > protocol.MaxImagePixels {
		return fmt.Errorf("%dx%d px", img.PixelWidth, img.PixelHeight)
	}
	return jpeg.Verify(&img)
}

// encodeCmd runs the call `acbridge photo --input` makes, in a process
// that links nothing else, so the bench can tell the encoder's cost from
// the acbridge binary's start-up (package initialisation of its audio,
// schema and WebRTC dependencies).
func encodeCmd(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: photobench encode IN OUT")
	}
	res, err := jpeg.EncodeFile(args[0], nil)
	if err != nil {
		return err
	}
	return os.WriteFile(args[1], res.Data, 0o644)
}
