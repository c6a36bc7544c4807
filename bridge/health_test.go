package bridge_test

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// failingOnce is a camera whose first capture fails as an unplugged one
// does; the next ones are the real camera's.
type failingOnce struct {
	bridge.Camera
	failed atomic.Bool
}

func (c *failingOnce) Photo(ctx context.Context) (*protocol.Image, error) {
	if !c.failed.Swap(true) {
		return nil, camera.WarnUnplugged.Wrap(errors.New("no frame in 5s"))
	}
	return c.Camera.Photo(ctx)
}

// A device failing a collection is a current problem in the health
// Tracker (which the status line reads) until the device works again.
func TestCollectionProblemsReachTheTracker(t *testing.T) {
	tracker := &health.Tracker{}
	r := newRig(t, func(r *rig) {
		r.tune = func(o *bridge.Options) {
			o.Devices.Camera = &failingOnce{Camera: o.Devices.Camera}
			o.Health = tracker
		}
	})
	r.press(button.Photo)
	waitNotice(t, r.out, "the failed photo", func(n notice.Notice) bool {
		return n.Kind == notice.Disarmed && n.Code == camera.WarnUnplugged.Code
	}, 1)
	if cur := tracker.Current(); !slices.Contains(cur, camera.WarnUnplugged) {
		t.Fatalf("current problems %v, want %s", cur, camera.WarnUnplugged.Code)
	}
	r.press(button.Photo)
	waitNotice(t, r.out, "the photo sent", kind(notice.Sent), 1)
	if cur := tracker.Current(); len(cur) != 0 {
		t.Errorf("current problems %v after the camera worked again", cur)
	}
}
