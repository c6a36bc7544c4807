package station

import (
	"context"
	"log/slog"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/protocol"
)

// Photo is the one photo pipeline: a camera and the JPEG encoder. The
// frame lives only until it is encoded, and the encoded bytes only in what
// Photo or Take return. The daemon, `acbridge photo`, the demo and the
// acceptance all capture through it, so what a technician sees is what an
// agent receives.
type Photo struct {
	cam     camera.Camera
	present func() bool
	device  string // the V4L2 device asked for; "" for the first one, a ribbon camera or a camera built elsewhere
}

// NewPhoto builds the pipeline of the configuration's camera section: a
// V4L2 camera, or a ribbon camera through rpicam-still ("rpicam:N", or
// the only camera when camera.device is empty or "auto"). It opens
// nothing: each capture opens and closes the camera.
func NewPhoto(c config.Camera, log *slog.Logger) (*Photo, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	// "" and "auto" become a ribbon camera when it is the only camera, else
	// "" (the first V4L2 camera, whose presence is sysfs's alone).
	dev := camera.Pick(context.Background(), c.Device)
	return CameraSourceOf(dev).Open(c, dev, log)
}

// PhotoOf is the pipeline of a camera built elsewhere (tests, a rig),
// always present, encoding with the 0.1 bounds.
func PhotoOf(cam camera.Camera) *Photo {
	return &Photo{cam: cam, present: func() bool { return true }}
}

// Capture captures one frame. Encode it next: the frame is the sensor's
// picture, not yet turned as the camera is mounted.
func (p *Photo) Capture(ctx context.Context) (*camera.Frame, error) { return p.cam.Capture(ctx) }

// Encode encodes f, turned as the camera is mounted (once, after
// downscaling), and drops f's picture.
func (p *Photo) Encode(f *camera.Frame) (*jpeg.Result, error) {
	res, err := jpeg.Encode(f.Image, &jpeg.Options{Orientation: f.Orientation})
	f.Image = nil
	return res, err
}

// Take captures one frame and encodes it, returning the encoder's result
// and the capture's facts (the frame's picture dropped).
func (p *Photo) Take(ctx context.Context) (*jpeg.Result, *camera.Frame, error) {
	f, err := p.Capture(ctx)
	if err != nil {
		return nil, nil, err
	}
	res, err := p.Encode(f)
	if err != nil {
		return nil, nil, err
	}
	return res, f, nil
}

// Photo captures one frame and encodes it into an observation image.
func (p *Photo) Photo(ctx context.Context) (*protocol.Image, error) {
	res, _, err := p.Take(ctx)
	if err != nil {
		return nil, err
	}
	img := res.Image
	return &img, nil
}

// Present reports whether the camera is connected now.
func (p *Photo) Present() bool { return p.present() }

// Close waits for a capture in progress and makes later ones fail.
func (p *Photo) Close() error { return p.cam.Close() }
