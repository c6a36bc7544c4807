// Package cameratest provides a V4L2-like stand-in camera for tests and
// benchmarks of the photo path: a list of modes (size, format, frame
// rate), frames paced at the chosen mode's frame interval, an exposure
// ramp like a webcam's auto-exposure after stream start, and MJPEG modes
// that cost a JPEG decode per frame as mediadevices' MJPEG path does.
package cameratest

import (
	"bytes"
	"fmt"
	"image"
	stdjpeg "image/jpeg"
	"math"
	"sync"
	"time"

	"github.com/pion/mediadevices/pkg/driver"
	"github.com/pion/mediadevices/pkg/frame"
	mio "github.com/pion/mediadevices/pkg/io/video"
	"github.com/pion/mediadevices/pkg/prop"
)

// Camera is the stand-in device. Set the fields before Driver.
type Camera struct {
	Modes []prop.Media
	// Picture is the scene, scaled to each mode by sampling; nil: a
	// synthetic scene with gradients and fine texture.
	Picture *image.YCbCr
	// Exposure returns the luma offset of the n-th frame after stream
	// start (0-based); nil: exposure is right from the first frame.
	Exposure func(n int) int

	mu      sync.Mutex
	streams int
}

// Streams counts VideoRecord calls.
func (c *Camera) Streams() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams
}

// Open implements driver.Adapter.
func (c *Camera) Open() error { return nil }

// Close implements driver.Adapter.
func (c *Camera) Close() error { return nil }

// Properties implements driver.Adapter.
func (c *Camera) Properties() []prop.Media { return c.Modes }

// VideoRecord starts a stream in mode p: frame n is delivered no earlier
// than n frame intervals after the first, as a real sensor paces them.
func (c *Camera) VideoRecord(p prop.Media) (mio.Reader, error) {
	c.mu.Lock()
	c.streams++
	c.mu.Unlock()
	base := scene(c.Picture, p.Width, p.Height)
	fps := float64(p.FrameRate)
	if fps <= 0 {
		fps = 30
	}
	interval := time.Duration(float64(time.Second) / fps)
	var mjpeg []byte
	if p.FrameFormat == frame.FormatMJPEG {
		var b bytes.Buffer
		if err := stdjpeg.Encode(&b, base, &stdjpeg.Options{Quality: 85}); err != nil {
			return nil, err
		}
		mjpeg = b.Bytes()
	}
	out := image.NewYCbCr(base.Rect, base.SubsampleRatio)
	start := time.Now()
	n := 0
	return mio.ReaderFunc(func() (image.Image, func(), error) {
		if wait := time.Until(start.Add(time.Duration(n) * interval)); wait > 0 {
			time.Sleep(wait)
		}
		off := 0
		if c.Exposure != nil {
			off = c.Exposure(n)
		}
		n++
		src := base
		if mjpeg != nil {
			img, err := stdjpeg.Decode(bytes.NewReader(mjpeg))
			if err != nil {
				return nil, func() {}, err
			}
			y, ok := img.(*image.YCbCr)
			if !ok {
				return nil, func() {}, fmt.Errorf("cameratest: MJPEG decoded to %T", img)
			}
			src = y
		}
		// Raw modes: the conversion from the packed format is one pass
		// over every sample, as the copy below is.
		for i, v := range src.Y {
			out.Y[i] = clamp(int(v) + off)
		}
		copy(out.Cb, src.Cb)
		copy(out.Cr, src.Cr)
		return out, func() {}, nil
	}), nil
}

// Driver wraps c in mediadevices' driver state machine under label.
func (c *Camera) Driver(label string) (driver.Driver, error) {
	m := driver.GetManager()
	if err := m.Register(c, driver.Info{Label: label, DeviceType: driver.Camera}); err != nil {
		return nil, err
	}
	for _, d := range m.Query(driver.FilterDeviceType(driver.Camera)) {
		if d.Info().Label == label {
			m.Delete(d.ID()) // keep it out of the global manager: only the caller uses it
			return d, nil
		}
	}
	return nil, fmt.Errorf("cameratest: %s did not register", label)
}

// Mode is a shorthand for one prop.Media.
func Mode(w, h int, f frame.Format, fps float32) prop.Media {
	return prop.Media{Video: prop.Video{Width: w, Height: h, FrameFormat: f, FrameRate: fps}}
}

// Ramp is an exposure that starts off by from levels and closes the gap
// by half every frame: the shape of a UVC auto-exposure loop.
func Ramp(from int) func(int) int {
	return func(n int) int { return int(math.Round(float64(from) * math.Pow(0.5, float64(n)))) }
}

func clamp(v int) uint8 {
	return uint8(min(max(v, 0), 255))
}

// scene renders pic (or the synthetic scene) at w x h in 4:2:0.
func scene(pic *image.YCbCr, w, h int) *image.YCbCr {
	m := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var v uint8
			if pic != nil {
				b := pic.Rect
				v = pic.Y[pic.YOffset(b.Min.X+x*b.Dx()/w, b.Min.Y+y*b.Dy()/h)]
			} else {
				fx, fy := float64(x)/float64(w), float64(y)/float64(h)
				t := 20 * math.Sin(fx*700) * math.Sin(fy*500)
				v = clamp(int(60 + 120*fx + 40*fy + t))
			}
			m.Y[y*m.YStride+x] = v
		}
	}
	for y := 0; y < (h+1)/2; y++ {
		for x := 0; x < (w+1)/2; x++ {
			cb, cr := uint8(128), uint8(128)
			if pic != nil {
				b := pic.Rect
				o := pic.COffset(b.Min.X+2*x*b.Dx()/w, b.Min.Y+2*y*b.Dy()/h)
				cb, cr = pic.Cb[o], pic.Cr[o]
			} else {
				cb, cr = clamp(110+x*40/w), clamp(140-y*40/h)
			}
			m.Cb[y*m.CStride+x], m.Cr[y*m.CStride+x] = cb, cr
		}
	}
	return m
}
