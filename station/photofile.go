package station

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/jpeg"
)

// PhotoReport is what `acbridge photo --json` prints: the wire metadata
// and the encoder's choices, never the image bytes.
type PhotoReport struct {
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

// oneShotHeapLimit is the Go heap at which a one-picture process collects
// garbage after all (EncodeFileOnce): above the largest input it reads whole
// (jpeg.streamAbove) plus the encoder's Go buffers, far below what a kiosk
// can spare.
const oneShotHeapLimit = 64 << 20

// EncodeFileOnce re-encodes the picture file at path as the daemon would
// send it, in a process that exits after this one picture (`acbridge photo
// --input`). Collecting the encoder's few MB of Go garbage cost ~5 ms of a
// 70 ms run (bench/photo.sh); the limit still bounds a pathological
// input's heap. The encode is one goroutine, but with more Ps each long
// cgo call let the scheduler hand the idle P to a spinning thread: one P
// halved the context switches and cut ~10% of the CPU time. All three are
// restored for a caller that runs on (the tests); the allocator's
// KeepFreedMemory stays, which only a process about to exit may want.
func EncodeFileOnce(path string) (*jpeg.Result, *PhotoReport, error) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(oneShotHeapLimit))
	jpeg.KeepFreedMemory()
	res, err := jpeg.EncodeFile(path, nil)
	if err != nil {
		return nil, nil, err
	}
	return verified(res, nil)
}

// CaptureOnce captures one photo through the daemon's pipeline (Photo),
// with the configuration's defaults for what c does not set, so that what
// a technician saves is exactly what the daemon would send.
func CaptureOnce(ctx context.Context, c config.Camera, timeout time.Duration) (*jpeg.Result, *PhotoReport, error) {
	p, err := NewPhoto(c, nil)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, f, err := p.Take(ctx)
	if err != nil {
		return nil, nil, err
	}
	return verified(res, f)
}

// verified checks the encoder's output as a receiver would (jpeg.VerifyOutput)
// and describes it.
func verified(res *jpeg.Result, f *camera.Frame) (*jpeg.Result, *PhotoReport, error) {
	if err := jpeg.VerifyOutput(&res.Image); err != nil {
		return nil, nil, fmt.Errorf("encoder output fails verification: %w", err)
	}
	im := res.Image
	rep := &PhotoReport{MediaType: im.MediaType, ByteCount: im.ByteCount, SHA256: im.SHA256,
		PixelWidth: im.PixelWidth, PixelHeight: im.PixelHeight, Quality: res.Quality, Encodes: res.Encodes,
		SourceWidth: res.SourceWidth, SourceHeight: res.SourceHeight,
		DecodeMs: ms(res.DecodeTime), EncodeMs: ms(res.EncodeTime)}
	if f != nil {
		settled := f.Settled
		rep.Device, rep.Discarded, rep.Settled = f.Device, f.Discarded, &settled
	}
	return res, rep, nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
