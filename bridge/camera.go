package bridge

import (
	"context"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/jpeg"
	"github.com/agentcall/acbridge/protocol"
)

// CameraJPEG is a Camera made of a camera.Camera and the JPEG encoder: the
// frame lives only until it is encoded, and the encoded bytes only in the
// returned observation image.
type CameraJPEG struct {
	Cam camera.Camera
	// Encode configures the encoder (nil: the 0.1 bounds).
	Encode *jpeg.Options
	// Attached reports whether the camera is plugged in now (nil: always).
	Attached func() bool
}

var _ Camera = (*CameraJPEG)(nil)

// Photo captures one frame and encodes it.
func (c *CameraJPEG) Photo(ctx context.Context) (*protocol.Image, error) {
	f, err := c.Cam.Capture(ctx)
	if err != nil {
		return nil, err
	}
	res, err := jpeg.Encode(f.Image, c.Encode)
	if err != nil {
		return nil, err
	}
	img := res.Image
	return &img, nil
}

// Present reports whether the camera is attached.
func (c *CameraJPEG) Present() bool { return c.Attached == nil || c.Attached() }
