package station_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/station"
)

func TestMain(m *testing.M) {
	rpicamtest.Main() // the rpicam-still and rpicam-hello stand-ins
	m.Run()
}

// camera.device = "rpicam:0" builds the rpicam-still pipeline: the photo
// is the sensor's aspect ratio, turned as configured, within the 0.1
// bounds, and no image byte reaches the log.
func TestPhotoRPiCam(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	cfg := parse(t, agent+"[camera]\ndevice = \"rpicam:0\"\nrotation = 90\ntimeout = \"20s\"\n")
	if err := station.Check(cfg); err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	p, err := station.NewPhoto(cfg.Camera, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Present() {
		t.Fatal("rpicam:0 listed by rpicam-hello is not present")
	}
	res, f, err := p.Take(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if f.Device != "rpicam:0" || f.Mode.Width != 1024 || f.Mode.Height != 576 || f.Image != nil {
		t.Errorf("frame %s %+v (picture kept: %v)", f.Device, f.Mode, f.Image != nil)
	}
	if res.Width != 576 || res.Height != 1024 {
		t.Errorf("photo %dx%d, want 576x1024 (turned 90°)", res.Width, res.Height)
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Errorf("processes left behind: %v", alive)
	}
	if strings.Contains(logs.String(), rpicamtest.Canary) {
		t.Errorf("image bytes in the log: %.300s", logs.String())
	}
	// The listing is cached: a camera that disappears from it is still
	// offered until the cache expires (a ribbon camera is not hot-plugged).
	s.SetListing(rpicamtest.ListingNone)
	if !p.Present() {
		t.Error("presence was not cached")
	}
}

// A camera rpicam-hello does not list is not present, so photo is not
// offered.
func TestPhotoRPiCamNotListed(t *testing.T) {
	rpicamtest.Install(t, rpicamtest.ListingIMX708)
	p, err := station.NewPhoto(parse(t, agent+"[camera]\ndevice = \"rpicam:1\"\n").Camera, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Present() {
		t.Error("rpicam:1 is present, but only camera 0 is listed")
	}
}

// "auto" (and "") takes the ribbon camera when no V4L2 camera is there.
func TestPhotoAutoPicksRPiCam(t *testing.T) {
	if camera.Present("") {
		t.Skip("this machine has a V4L2 camera, which auto prefers")
	}
	rpicamtest.Install(t, rpicamtest.ListingIMX219)
	for _, dev := range []string{"auto", ""} {
		p, err := station.NewPhoto(parse(t, agent+"[camera]\ndevice = \""+dev+"\"\n").Camera, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, f, err := p.Take(context.Background())
		p.Close()
		if err != nil || f.Device != "rpicam:0" || f.Mode.Width != 1024 || f.Mode.Height != 768 {
			t.Errorf("device %q: %v, %+v", dev, err, f)
		}
	}
}

func TestCheckRPiDevice(t *testing.T) {
	for _, dev := range []string{"rpicam:8", "rpicam:x", "rpicam:", "rpicam:00"} {
		err := station.Check(parse(t, agent+"[camera]\ndevice = \""+dev+"\"\n"))
		if err == nil || !strings.Contains(err.Error(), "camera.device must be rpicam:N with N from 0 to 7") {
			t.Errorf("%s: Check = %v", dev, err)
		}
	}
	for _, dev := range []string{"rpicam:0", "rpicam:7", "auto"} {
		if err := station.Check(parse(t, agent+"[camera]\ndevice = \""+dev+"\"\n")); err != nil {
			t.Errorf("%s: Check = %v", dev, err)
		}
	}
}

// `acbridge devices` lists the ribbon cameras under their configuration
// name.
func TestDevicesListRPiCameras(t *testing.T) {
	rpicamtest.Install(t, rpicamtest.ListingIMX708)
	for _, sec := range station.Sections() {
		if sec.Name != "cameras" {
			continue
		}
		devs, err := sec.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range devs {
			if d.Name == "rpicam:0" {
				if d.Attrs["sensor"] != "4608x2592" || d.Attrs["capture"] != "1024x576" || !strings.Contains(d.Attrs["description"].(string), "imx708") {
					t.Errorf("rpicam:0 listed as %+v", d.Attrs)
				}
				return
			}
		}
		t.Fatalf("rpicam:0 not listed: %+v", devs)
	}
	t.Fatal("no cameras section")
}
