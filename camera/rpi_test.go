package camera

import (
	"context"
	"errors"
	"testing"

	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
)

func TestParseRPi(t *testing.T) {
	for _, tc := range []struct {
		in      string
		n       int
		ok, bad bool
	}{
		{"rpicam:0", 0, true, false},
		{"rpicam:7", 7, true, false},
		{"rpicam:8", 0, true, true},
		{"rpicam:-1", 0, true, true},
		{"rpicam:01", 0, true, true},
		{"rpicam:", 0, true, true},
		{"rpicam:x", 0, true, true},
		{"/dev/video0", 0, false, false},
		{"", 0, false, false},
	} {
		n, ok, err := ParseRPi(tc.in)
		if n != tc.n || ok != tc.ok || (err != nil) != tc.bad || (err != nil && !errors.Is(err, ErrBadConfig)) {
			t.Errorf("ParseRPi(%q) = %d, %v, %v", tc.in, n, ok, err)
		}
	}
}

func TestParseRPiList(t *testing.T) {
	two := rpicamtest.ListingIMX708 + `1 : imx477 [4056x3040 12-bit RGGB] (/base/soc/i2c0mux/i2c@0/imx477@1a)
    Modes: 'SRGGB12_CSI2P' : 2028x1520 [40.01 fps - (0, 0)/4056x3040 crop]

2 : ov5647 ] (/base/x/ov5647@36)
    Modes: 'SGBRG10_CSI2P' : 640x480 [58.92 fps - (16, 0)/2560x1920 crop]
                             2592x1944 [15.63 fps - (0, 0)/2592x1944 crop]
                             1920x1080 [32.81 fps - (348, 434)/1928x1080 crop]
9 : imx999 [1x1] (beyond the index range)
`
	got := ParseRPiList(two)
	want := []RPiSensor{
		{0, "imx708", 4608, 2592, "/base/soc/i2c0mux/i2c@1/imx708@1a"},
		{1, "imx477", 4056, 3040, "/base/soc/i2c0mux/i2c@0/imx477@1a"},
		{2, "ov5647", 2592, 1944, "/base/x/ov5647@36"},
	}
	if len(got) != len(want) {
		t.Fatalf("ParseRPiList = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("camera %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := ParseRPiList(rpicamtest.ListingNone); len(got) != 0 {
		t.Errorf("no cameras: %+v", got)
	}
}

// rpicam:N is present only when rpicam-hello lists camera N; "auto" also
// when a ribbon camera is the only camera; "" stays the V4L2 check of
// sysfs alone, cheap enough for the daemon's periodic check.
func TestPresentRPi(t *testing.T) {
	piNoV4L2 := fakeSys(t, map[string]string{"video0": "unicam-image", "video10": "bcm2835-codec-decode", "video13": "bcm2835-isp"})
	withUVC := fakeSys(t, map[string]string{"video0": "HD Pro Webcam C920", "video10": "bcm2835-codec-decode"})
	t.Setenv("PATH", t.TempDir()) // no rpicam-apps
	for _, dev := range []string{"rpicam:0", "", Auto} {
		if present(dev, piNoV4L2) {
			t.Errorf("present(%q) without rpicam-apps and with only a CSI receiver node = true", dev)
		}
	}
	s := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	for dev, want := range map[string]bool{"rpicam:0": true, "rpicam:1": false, "rpicam:9": false, "": false, Auto: true} {
		if got := present(dev, piNoV4L2); got != want {
			t.Errorf("present(%q) with imx708 listed = %v", dev, got)
		}
	}
	if !present("", withUVC) {
		t.Error("a UVC camera is not present")
	}
	ctx := context.Background()
	for _, tc := range []struct{ dev, sys, want string }{
		{"", piNoV4L2, "rpicam:0"}, {Auto, piNoV4L2, "rpicam:0"}, {"", withUVC, ""}, {Auto, withUVC, ""},
		{"/dev/video0", piNoV4L2, "/dev/video0"}, {"rpicam:3", withUVC, "rpicam:3"},
	} {
		if got := pick(ctx, tc.dev, tc.sys); got != tc.want {
			t.Errorf("pick(%q) = %q, want %q", tc.dev, got, tc.want)
		}
	}
	s.SetListing(rpicamtest.ListingNone)
	for _, dev := range []string{"rpicam:0", "", Auto} {
		if present(dev, piNoV4L2) {
			t.Errorf("present(%q) with no camera listed = true", dev)
		}
	}
	if got := pick(ctx, Auto, piNoV4L2); got != "" {
		t.Errorf("pick(auto) with no camera listed = %q", got)
	}
	list, err := ListRPi(ctx)
	if err != nil || len(list) != 0 {
		t.Errorf("ListRPi with no camera = %v, %v", list, err)
	}
}
