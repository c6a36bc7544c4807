package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"

	"github.com/agentcall/acbridge/station"
)

// `acbridge photo --camera rpicam:0` captures through the rpicam-still
// stand-in and writes the daemon's JPEG; `devices` lists the camera; a
// failing capture is a clear error, with no image byte on any output.
func TestPhotoRPiCam(t *testing.T) {
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	out := filepath.Join(t.TempDir(), "out.jpg")
	code, stdout, stderr := run(t, "photo", "--camera", "rpicam:0", "--rotate", "180", "-o", out, "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep station.PhotoReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	if rep.Device != "rpicam:0" || rep.SourceWidth != 1024 || rep.SourceHeight != 576 || rep.PixelWidth != 1024 || rep.PixelHeight != 576 {
		t.Errorf("report %+v", rep)
	}
	if data, err := os.ReadFile(out); err != nil || len(data) != rep.ByteCount {
		t.Errorf("file: %d bytes, %v; report %d", len(data), err, rep.ByteCount)
	}

	code, stdout, stderr = run(t, "devices")
	if !strings.Contains(stdout, "rpicam:0  capture=1024x576") || !strings.Contains(stdout, "imx708") {
		t.Errorf("devices (exit %d) does not list rpicam:0:\n%s%s", code, stdout, stderr)
	}

	s.Set(rpicamtest.Garbage, "")
	code, stdout, stderr = run(t, "photo", "--camera", "rpicam:0", "-o", filepath.Join(t.TempDir(), "bad.jpg"))
	if code != 1 || !strings.Contains(stderr, "not a 1024x576 YUV420 picture") {
		t.Errorf("garbage: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout+stderr, rpicamtest.Canary) {
		t.Errorf("image bytes on the output:\n%s%s", stdout, stderr)
	}
	if alive := s.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Errorf("processes left behind: %v", alive)
	}

	code, _, stderr = run(t, "photo", "--camera", "rpicam:9", "-o", filepath.Join(t.TempDir(), "bad.jpg"))
	if code == 0 || !strings.Contains(stderr, "rpicam:N with N from 0 to 7") {
		t.Errorf("rpicam:9: exit %d: %s", code, stderr)
	}
}
