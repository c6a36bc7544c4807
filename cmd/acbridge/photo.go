package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{
		name:    "photo",
		summary: "capture (or re-encode a file) into the bounded 0.1 JPEG and write it to a file",
		run:     runPhoto,
	})
}

// runPhoto is the technician's tool. The daemon never writes photos; this
// command writes exactly one file, because -o asked for it.
func runPhoto(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "photo", "[--camera ID [--rotate DEGREES] [--mirror] [--timeout DURATION] | --input FILE] -o OUT.jpg [--json]")
	cam := fs.String("camera", "", "camera label, label part, device path, or rpicam:N for a Raspberry Pi ribbon camera (default: first camera; "+camera.TestDevice+" for the test pattern)")
	input := fs.String("input", "", "re-encode this JPEG, PNG or YUV4MPEG2 file instead of capturing")
	out := fs.String("o", "", "write the JPEG to this file (required)")
	asJSON := fs.Bool("json", false, "print metadata, chosen size, quality and encode time as JSON")
	rotate := fs.Int("rotate", 0, "camera rotation clockwise: 0, 90, 180 or 270")
	mirror := fs.Bool("mirror", false, "mirror the camera picture left-right")
	timeout := fs.Duration("timeout", 15*time.Second, "give up on the camera after this long")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	camSet := false
	fs.Visit(func(f *flag.Flag) { camSet = camSet || f.Name == "camera" })
	if *out == "" {
		fmt.Fprintln(e.Stderr, "acbridge photo: -o OUT.jpg is required")
		return 2
	}
	if camSet && *input != "" {
		fmt.Fprintln(e.Stderr, "acbridge photo: --camera and --input exclude each other")
		return 2
	}

	var (
		res *jpeg.Result
		rep *station.PhotoReport
		err error
	)
	if *input != "" {
		res, rep, err = station.EncodeFileOnce(*input)
	} else {
		c := config.Defaults().Camera
		c.Device, c.Rotation, c.Mirror = *cam, *rotate, *mirror
		res, rep, err = station.CaptureOnce(ctx, c, *timeout)
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge photo: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, res.Data, 0o600); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge photo: %v\n", err)
		return 1
	}
	rep.File = *out
	if *asJSON {
		return printJSON(e, "photo", rep, 0)
	}
	fmt.Fprintf(e.Stdout, "wrote %s: %dx%d px, %d bytes, quality %d, encoded in %.0f ms\n",
		rep.File, rep.PixelWidth, rep.PixelHeight, rep.ByteCount, rep.Quality, rep.EncodeMs)
	return 0
}
