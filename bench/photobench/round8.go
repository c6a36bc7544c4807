package main

import (
	"fmt"
	"image"
	"image/png"
	"os"
)

// round8Cmd writes IN (any PNG or JPEG) as an 8-bit RGB PNG, each 16-bit
// sample rounded to the nearest 8-bit value. It exists for butteraugli:
// Debian's butteraugli reads PNG through libpng with its 16-bit samples
// stripped to their high byte, which truncates (a 16-bit reference then
// sits up to one step darker than the picture it stands for, half a step
// on average), and ImageMagick's -depth 8 truncates as well. On Storm that
// bias alone moved every tool's butteraugli score by up to 0.66 and
// reordered them, so the bench hands butteraugli rounded 8-bit files.
func round8Cmd(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: photobench round8 IN OUT.png")
	}
	src, err := decodeFile(args[0])
	if err != nil {
		return err
	}
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := 0; y < b.Dy(); y++ {
		row := dst.Pix[y*dst.Stride:]
		for x := 0; x < b.Dx(); x++ {
			r, g, bl, _ := src.At(b.Min.X+x, b.Min.Y+y).RGBA()
			row[4*x] = round16(r)
			row[4*x+1] = round16(g)
			row[4*x+2] = round16(bl)
			row[4*x+3] = 0xff
		}
	}
	out, err := os.Create(args[1])
	if err != nil {
		return err
	}
	if err := png.Encode(out, dst); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// round16 maps a 16-bit sample to the nearest 8-bit one (v8 * 257 == v16
// for exact values).
func round16(v uint32) uint8 { return uint8((v + 128) / 257) }
