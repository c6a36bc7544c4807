package bridge_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// waitNotice waits until n notices match.
func waitNotice(t *testing.T, tr *bridgetest.Transcript, what string, match func(notice.Notice) bool, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.WaitNotice(ctx, match, n); err != nil {
		t.Fatalf("timed out waiting for %d× %s in:\n%s", n, what, tr.String())
	}
}

func kind(k notice.Kind) func(notice.Notice) bool {
	return func(n notice.Notice) bool { return n.Kind == k }
}

// A press and a typed line made while the bridge is still dialling are
// refused at once and never reach the session that comes up afterwards.
func TestInputWhileDiallingIsRefused(t *testing.T) {
	gate, reached := make(chan struct{}), make(chan struct{})
	var open, first sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	defer release()
	r := newRig(t, func(r *rig) {
		r.noWait = true
		// The card request stalls until released: the bridge is dialling.
		r.handler = func(a *agent.Agent) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				first.Do(func() { close(reached) })
				<-gate
				a.ServeHTTP(w, req)
			})
		}
	})
	select {
	case <-reached:
	case <-time.After(10 * time.Second):
		t.Fatal("the bridge never fetched the card")
	}
	r.press(button.Photo)
	r.say("a stale line")
	waitNotice(t, r.out, "the press refused", func(n notice.Notice) bool {
		return n.Kind == notice.Refused && n.Control == button.Photo && n.Text == notice.NotConnected
	}, 1)
	waitNotice(t, r.out, "the line refused", func(n notice.Notice) bool {
		return n.Kind == notice.Refused && n.Control == ""
	}, 1)
	release()
	waitNotice(t, r.out, "the session", kind(notice.Connected), 1)
	// Presses reach the session in order: once a later TALK is answered,
	// a wrongly queued PHOTO would have been armed before it.
	r.press(button.Talk)
	waitNotice(t, r.out, "the later press answered", func(n notice.Notice) bool {
		return n.Kind == notice.Refused && n.Control == button.Talk
	}, 1)
	if c := r.photos.Load(); c != 0 {
		t.Errorf("the camera was asked for %d photo(s) after a refused press", c)
	}
	for _, k := range []notice.Kind{notice.Armed, notice.Sent, notice.User, notice.AgentText} {
		if c := r.out.CountNotices(kind(k)); c != 0 {
			t.Errorf("%d %s notice(s) after refused input:\n%s", c, k, r.out.String())
		}
	}
}

// A long CANCEL while the reader is armed disarms it at once: the window
// closes long before its end and a tag tapped afterwards is not sent.
func TestLongCancelDisarmsTheReader(t *testing.T) {
	r := newRig(t, func(r *rig) {
		r.tune = func(o *bridge.Options) { o.Policy.Window = 60 * time.Second }
	})
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed", func(n notice.Notice) bool {
		return n.Kind == notice.Armed && n.Control == button.Scan
	}, 1)
	start := time.Now()
	r.buttons.Tap(button.Cancel, true)
	waitNotice(t, r.out, "the scan cancelled", func(n notice.Notice) bool {
		return n.Kind == notice.Disarmed && n.Control == button.Scan && n.Text == "scan cancelled"
	}, 1)
	t.Logf("disarmed %v after the long CANCEL (window 60 s)", time.Since(start).Round(time.Millisecond))
	// The notice comes once the reader's Scan has returned: no window is
	// left open for a tag tapped now.
	if n := r.reader.Armed(); n != 0 {
		t.Fatalf("%d reader window(s) still open after the CANCEL", n)
	}
	r.reader.Tap(canaryUID)
	r.reader.Remove()
	// The reader is free for the next press; notices come in order, so a
	// tag wrongly sent would show before the reader is armed again.
	r.press(button.Scan)
	waitNotice(t, r.out, "the reader armed again", func(n notice.Notice) bool {
		return n.Kind == notice.Armed && n.Control == button.Scan
	}, 2)
	if c := r.out.CountNotices(kind(notice.Sent)); c != 0 {
		t.Errorf("a tag was sent after the CANCEL:\n%s", r.out.String())
	}
	r.checkNoCanary()
	if strings.Contains(r.out.String(), "context canceled") {
		t.Errorf("the person sees a Go error:\n%s", r.out.String())
	}
}

// stallingCamera never finishes a capture on its own: a camera that hangs
// (a USB camera that stopped delivering frames) or a slow settle.
type stallingCamera struct{ started chan struct{} }

func (c *stallingCamera) Photo(ctx context.Context) (*protocol.Image, error) {
	c.started <- struct{}{}
	<-ctx.Done()
	return nil, ctx.Err()
}

func (c *stallingCamera) Present() bool { return true }

// A long CANCEL during a photo capture stops it at once: the capture's
// context is cancelled, nothing is sent, and PHOTO works again.
func TestLongCancelStopsAPhotoCapture(t *testing.T) {
	cam := &stallingCamera{started: make(chan struct{}, 2)}
	r := newRig(t, func(r *rig) {
		r.tune = func(o *bridge.Options) { o.Devices.Camera = cam }
	})
	r.press(button.Photo)
	select {
	case <-cam.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the capture did not start")
	}
	r.buttons.Tap(button.Cancel, true)
	waitNotice(t, r.out, "the photo cancelled", func(n notice.Notice) bool {
		return n.Kind == notice.Disarmed && n.Control == button.Photo && n.Text == "photo cancelled"
	}, 1)
	r.press(button.Photo)
	select {
	case <-cam.started:
	case <-time.After(10 * time.Second):
		t.Fatal("PHOTO did not work again after the CANCEL")
	}
	if c := r.out.CountNotices(kind(notice.Sent)); c != 0 {
		t.Errorf("%d observation(s) sent", c)
	}
}
