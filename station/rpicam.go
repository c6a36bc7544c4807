package station

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/camera/rpicam"
	"github.com/agentcall/acbridge/config"
)

// rpiPresenceTTL is how long a ribbon camera's listing is trusted. The
// daemon checks presence every few seconds, and each listing runs
// rpicam-hello, which opens the camera for a second or two; a ribbon
// camera is not hot-plugged, so a stale answer costs at most one failing
// press with a clear error.
const rpiPresenceTTL = 5 * time.Minute

// newRPiPhoto builds the pipeline of a ribbon camera ("rpicam:N").
func newRPiPhoto(c config.Camera, index int, log *slog.Logger) (*Photo, error) {
	cam, err := rpicam.New(&rpicam.Options{Index: index, Timeout: c.Timeout.Duration, Rotation: c.Rotation, Mirror: c.Mirror, Logger: log})
	if err != nil {
		return nil, err
	}
	p := &rpiPresence{cam: cam, ttl: rpiPresenceTTL, now: time.Now}
	return &Photo{cam: cam, present: p.present}, nil
}

// rpiPresence caches whether rpicam-hello lists the camera.
type rpiPresence struct {
	cam *rpicam.Cam
	ttl time.Duration
	now func() time.Time

	mu      sync.Mutex
	checked time.Time
	known   bool
	ok      bool
}

func (p *rpiPresence) present() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	// During a capture rpicam-still holds the camera: keep the last answer.
	if p.known && (p.cam.Busy() || p.now().Sub(p.checked) < p.ttl) {
		return p.ok
	}
	p.ok, p.checked, p.known = camera.Present(p.cam.Device()), p.now(), true
	return p.ok
}

// listRPiCameras lists the ribbon cameras rpicam-hello knows; none, and no
// error, without rpicam-apps.
func listRPiCameras(ctx context.Context) ([]Device, error) {
	list, err := camera.ListRPi(ctx)
	if errors.Is(err, camera.ErrNoRPiTool) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := make([]Device, 0, len(list))
	for _, s := range list {
		w, h := rpicam.SizeFor(s.Width, s.Height)
		out = append(out, Device{Name: s.Device(), Attrs: map[string]any{"description": "Raspberry Pi camera " + s.Model + " (rpicam-still)",
			"sensor": sizeText(s.Width, s.Height), "capture": sizeText(w, h), "id": s.ID}})
	}
	return out, nil
}

func sizeText(w, h int) string { return fmt.Sprintf("%dx%d", w, h) }

// RPiCamTools are the programs a ribbon camera (camera.device "rpicam:N")
// needs: the capture and the listing tool.
func RPiCamTools() []string { return []string{rpicam.Tool, camera.RPiListTool} }
