package station

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/camera/rpicam"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
)

// The listing is re-run once the cache expires, so a camera that stops
// being listed stops being offered.
func TestRPiPresenceExpires(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	cam, err := rpicam.New(&rpicam.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cam.Close()
	now := time.Unix(1_800_000_000, 0)
	p := &rpiPresence{cam: cam, ttl: time.Minute, now: func() time.Time { return now }}
	if !p.present() {
		t.Fatal("listed camera not present")
	}
	s.SetListing(rpicamtest.ListingNone)
	now = now.Add(59 * time.Second)
	if !p.present() {
		t.Error("re-listed before the cache expired")
	}
	now = now.Add(2 * time.Second)
	if p.present() {
		t.Error("still present after the cache expired and the listing lost it")
	}
}
