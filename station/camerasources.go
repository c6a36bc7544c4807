package station

import (
	"context"
	"log/slog"
	"slices"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
)

// CameraSource is one row of the camera source table (as readerDrivers is
// for readers): one kind of camera camera.device can name. check-config,
// Open, `acbridge devices`, doctor and accept read it; a new kind of
// camera is its package and one row.
type CameraSource struct {
	Name string // CameraV4L2, CameraRPi, CameraTest
	// Is reports whether a camera.device value, resolved by camera.Pick,
	// names this source; nil for the row every other value falls to.
	Is func(device string) bool
	// Check adds the problems of camera.device as this source reads it;
	// nil: nothing beyond the name check every device key has.
	Check func(device string, add func(string, ...any))
	// Open builds the photo pipeline; it opens nothing (each capture
	// opens and closes the camera).
	Open func(c config.Camera, device string, log *slog.Logger) (*Photo, error)
	// List is what this source offers, for the cameras section.
	List func(ctx context.Context) ([]Device, error)
}

// The camera sources' names.
const (
	CameraV4L2 = "v4l2"   // a V4L2 camera by label, label part or /dev path; "" for the first
	CameraRPi  = "rpicam" // a ribbon camera through rpicam-still ("rpicam:N")
	CameraTest = "test"   // the generated test pattern (camera.TestDevice)
)

// cameraSources is the table, in `acbridge devices` order.
var cameraSources = []CameraSource{
	{Name: CameraV4L2, Open: openV4L2Photo, List: func(ctx context.Context) ([]Device, error) { return listV4L2Cameras(ctx, false) }},
	{
		Name: CameraTest, Is: func(d string) bool { return d == camera.TestDevice }, Open: openV4L2Photo,
		List: func(ctx context.Context) ([]Device, error) { return listV4L2Cameras(ctx, true) },
	},
	{
		Name: CameraRPi,
		Is:   func(d string) bool { _, ok, _ := camera.ParseRPi(d); return ok },
		Check: func(d string, add func(string, ...any)) {
			if _, _, err := camera.ParseRPi(d); err != nil {
				add("camera.device must be rpicam:N with N from 0 to %d, the index `rpicam-hello --list-cameras` prints, not %q", camera.MaxRPiIndex, clip(d))
			}
		},
		Open: func(c config.Camera, d string, log *slog.Logger) (*Photo, error) {
			n, _, err := camera.ParseRPi(d)
			if err != nil {
				return nil, err
			}
			return newRPiPhoto(c, n, log)
		},
		List: listRPiCameras,
	},
}

// CameraSourceOf is the row a camera.device value (resolved by
// camera.Pick, or as written where nothing may be probed) belongs to.
func CameraSourceOf(device string) CameraSource {
	if i := slices.IndexFunc(cameraSources, func(s CameraSource) bool { return s.Is != nil && s.Is(device) }); i >= 0 {
		return cameraSources[i]
	}
	i := slices.IndexFunc(cameraSources, func(s CameraSource) bool { return s.Is == nil })
	return cameraSources[i]
}

// openV4L2Photo is the pipeline of a camera mediadevices opens: a V4L2
// device, or its test pattern.
func openV4L2Photo(c config.Camera, dev string, log *slog.Logger) (*Photo, error) {
	cam, err := camera.New(camera.Config{Device: dev, Rotation: c.Rotation, Mirror: c.Mirror,
		Settle: camera.Settle{MaxFrames: c.SettleFrames, MaxWait: c.SettleTimeout.Duration}, Logger: log})
	if err != nil {
		return nil, err
	}
	return &Photo{cam: cam, present: func() bool { return camera.Present(dev) }, device: dev}, nil
}

// listCameras is the cameras section: every source's list.
func listCameras(ctx context.Context) ([]Device, error) {
	var out []Device
	for _, s := range cameraSources {
		l, err := s.List(ctx)
		out = append(out, l...)
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// listV4L2Cameras lists the cameras mediadevices knows: the test pattern
// (test) or the real ones.
func listV4L2Cameras(ctx context.Context, test bool) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var out []Device
	for _, c := range camera.List() {
		switch {
		case c.Test != test:
		case c.Test:
			out = append(out, Device{Name: c.Label, Attrs: map[string]any{"test": true, "simulated": true, "description": c.Name}})
		default:
			name := c.Label
			if c.Node != "" {
				name = "/dev/" + c.Node
			}
			// A node without a name did not answer as a capture device: a
			// codec or ISP node on a Raspberry Pi, or a camera busy elsewhere.
			out = append(out, Device{Name: name, Attrs: map[string]any{"label": c.Label, "description": c.Name, "bus": c.Bus, "capture": c.Name != ""}})
		}
	}
	return out, nil
}
