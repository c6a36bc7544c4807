package station_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

// Every value camera.device takes falls to one row of the camera source
// table, which check-config, Open, devices and accept read.
func TestCameraSourceOf(t *testing.T) {
	for dev, want := range map[string]string{
		"":                station.CameraV4L2,
		"/dev/video0":     station.CameraV4L2,
		"USB Camera":      station.CameraV4L2,
		camera.TestDevice: station.CameraTest,
		"rpicam:0":        station.CameraRPi,
		"rpicam:x":        station.CameraRPi,
	} {
		if got := station.CameraSourceOf(dev).Name; got != want {
			t.Errorf("%q: source %q, want %q", dev, got, want)
		}
	}
}

// check-config asks the row: a bad ribbon index is named with its fix.
func TestCheckCameraSource(t *testing.T) {
	cfg, err := config.Parse([]byte(agent + "[camera]\ndevice = \"rpicam:99\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = station.Check(cfg)
	if err == nil || !strings.Contains(err.Error(), "camera.device must be rpicam:N") {
		t.Fatalf("Check: %v", err)
	}
}

// The test pattern is opened and listed through its row.
func TestTestCameraThroughTheTable(t *testing.T) {
	p, err := station.NewPhoto(config.Camera{Device: camera.TestDevice}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if !p.Present() {
		t.Error("the test pattern is not present")
	}
	list, err := station.CameraSourceOf(camera.TestDevice).List(context.Background())
	if err != nil || len(list) == 0 || list[0].Attrs["test"] != true {
		t.Errorf("the test row lists %v (%v)", list, err)
	}
}
