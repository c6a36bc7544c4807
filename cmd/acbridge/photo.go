package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
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

// photoReport is what --json prints: the wire metadata and the encoder's
// choices, never the image bytes.
type photoReport struct {
	File         string  `json:"file"`
	MediaType    string  `json:"mediaType"`
	ByteCount    int     `json:"byteCount"`
	SHA256       string  `json:"sha256"`
	PixelWidth   int     `json:"pixelWidth"`
	PixelHeight  int     `json:"pixelHeight"`
	Quality      int     `json:"quality"`
	Encodes      int     `json:"encodes"`
	SourceWidth  int     `json:"sourceWidth"`
	SourceHeight int     `json:"sourceHeight"`
	DecodeMs     float64 `json:"decodeMs,omitempty"`
	EncodeMs     float64 `json:"encodeMs"`
	Device       string  `json:"device,omitempty"`
	Discarded    int     `json:"discardedFrames,omitempty"`
	Settled      *bool   `json:"exposureSettled,omitempty"`
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
		rep photoReport
		err error
	)
	if *input != "" {
		// One picture, then exit: collecting the encoder's few MB of Go
		// garbage cost ~5 ms of a 70 ms run (bench/photo.sh); the limit
		// still bounds a pathological input's heap. The encode is one
		// goroutine, but with more Ps each long cgo call let the
		// scheduler hand the idle P to a spinning thread: one P halved
		// the context switches and cut ~10% of the CPU time. All three
		// are restored for a caller that runs on (the tests).
		defer debug.SetGCPercent(debug.SetGCPercent(-1))
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(photoHeapLimit))
		jpeg.KeepFreedMemory() // for good: the process ends after this picture
		res, err = jpeg.EncodeFile(*input, nil)
	} else {
		c := config.Defaults().Camera
		c.Device, c.Rotation, c.Mirror = *cam, *rotate, *mirror
		res, err = capturePhoto(ctx, c, *timeout, &rep)
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge photo: %v\n", err)
		return 1
	}
	if err := jpeg.VerifyOutput(&res.Image); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge photo: encoder output fails verification: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, res.Data, 0o600); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge photo: %v\n", err)
		return 1
	}
	rep.File = *out
	rep.MediaType, rep.ByteCount, rep.SHA256 = res.Image.MediaType, res.Image.ByteCount, res.Image.SHA256
	rep.PixelWidth, rep.PixelHeight = res.Image.PixelWidth, res.Image.PixelHeight
	rep.Quality, rep.Encodes = res.Quality, res.Encodes
	rep.SourceWidth, rep.SourceHeight = res.SourceWidth, res.SourceHeight
	rep.DecodeMs = ms(res.DecodeTime)
	rep.EncodeMs = ms(res.EncodeTime)
	if *asJSON {
		return printJSON(e, "photo", rep, 0)
	}
	fmt.Fprintf(e.Stdout, "wrote %s: %dx%d px, %d bytes, quality %d, encoded in %.0f ms\n",
		rep.File, rep.PixelWidth, rep.PixelHeight, rep.ByteCount, rep.Quality, rep.EncodeMs)
	return 0
}

// capturePhoto captures through the daemon's pipeline (station.Photo),
// with the configuration's defaults for what the flags do not set, so that
// the file holds exactly what the daemon would send.
func capturePhoto(ctx context.Context, c config.Camera, timeout time.Duration, rep *photoReport) (*jpeg.Result, error) {
	p, err := station.NewPhoto(c, nil)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, f, err := p.Take(ctx)
	if err != nil {
		return nil, err
	}
	rep.Device, rep.Discarded = f.Device, f.Discarded
	settled := f.Settled
	rep.Settled = &settled
	return res, nil
}

// photoHeapLimit is the Go heap at which `photo --input` collects garbage
// after all: above the largest input it reads whole (jpeg.streamAbove) plus
// the encoder's Go buffers, far below what a kiosk can spare.
const photoHeapLimit = 64 << 20

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
