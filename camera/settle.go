package camera

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"time"
)

// maxBrokenFrames is how many frames in a row may fail to decode before
// the capture fails: a UVC camera's MJPEG stream has the odd broken frame
// (the first after the stream starts, one cut short on a busy USB bus),
// which is skipped; a stream of them is a damaged camera or connection.
const maxBrokenFrames = 5

// brokenFrame reports whether err is a frame's failed JPEG decode (the
// mediadevices reader decodes MJPEG with image/jpeg), not the device's.
func brokenFrame(err error) bool {
	var fe jpeg.FormatError
	var ue jpeg.UnsupportedError
	return errors.As(err, &fe) || errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF)
}

// reader is the part of mediadevices' video.Reader used here.
type reader interface {
	Read() (image.Image, func(), error)
}

// lumaSample is one frame's mean luma and when it was read.
type lumaSample struct {
	at   time.Time
	mean float64
}

// stableWindow reports whether the samples read over the last s.StableFor
// (and at least s.Stable+1 of them) all lie within s.Tolerance of each
// other. The span of the whole window, not the step between neighbours,
// is compared: a slow exposure ramp moves little per frame but a lot
// over the window, and must not count as settled.
func stableWindow(hist []lumaSample, s Settle) bool {
	n := len(hist)
	if n < s.Stable+1 {
		return false
	}
	last := hist[n-1]
	lo, hi := last.mean, last.mean
	for i := n - 1; i >= 0; i-- {
		m := hist[i].mean
		lo, hi = min(lo, m), max(hi, m)
		if hi-lo > s.Tolerance {
			return false
		}
		// A tenth of slack: frame timestamps jitter, and a window one
		// nanosecond short of StableFor must not cost a whole frame.
		if n-i >= s.Stable+1 && last.at.Sub(hist[i].at) >= s.StableFor-s.StableFor/10 {
			return true
		}
	}
	return false
}

// settle reads frames until auto-exposure has converged (stableWindow) or
// a cap runs out, and returns a private copy of the last frame: the driver
// reuses, and on close frees, its buffers. Only the kept frame is copied;
// the others are measured in the driver's buffer.
func (d *Device) settle(ctx context.Context, r reader, label string) (*image.YCbCr, int, bool, error) {
	s := d.cfg.Settle
	deadline := d.now().Add(s.MaxWait)
	var (
		hist    []lumaSample // frames after the MinFrames discarded
		scratch *image.YCbCr // conversion buffer for frames not in Y'CbCr
		frames  int
		broken  int // frames in a row that did not decode
	)
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, false, fmt.Errorf("camera: capture cancelled: %w", err)
		}
		if d.isClosed() {
			return nil, 0, false, ErrClosed
		}
		img, release, err := r.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, 0, false, fmt.Errorf("%w (%s)", ErrUnplugged, label)
			}
			if brokenFrame(err) {
				if broken++; broken < maxBrokenFrames {
					d.log.Debug("camera frame does not decode; skipped", "device", label, "error", err)
					continue
				}
				return nil, 0, false, fmt.Errorf("%w (%s: %d frames in a row: %v)", ErrBrokenFrames, label, broken, err)
			}
			return nil, 0, false, classify(label, "read", err)
		}
		broken = 0
		frames++
		now := d.now()
		y, ok := img.(*image.YCbCr)
		if !ok {
			scratch = copyFrame(img, scratch)
			y = scratch
		}
		if y == nil || y.Rect.Empty() {
			release()
			return nil, 0, false, fmt.Errorf("%w: %s delivered an empty frame", ErrUnplugged, label)
		}
		if frames > s.MinFrames {
			hist = append(hist, lumaSample{at: now, mean: meanLuma(y)})
		}
		settled := stableWindow(hist, s)
		if settled || frames >= s.MaxFrames || !now.Before(deadline) {
			out := copyFrame(y, nil)
			release()
			return out, frames - 1, settled, nil
		}
		release()
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
