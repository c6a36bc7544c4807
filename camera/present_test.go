package camera

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeSys writes a /sys/class/video4linux look-alike: node name -> kernel
// name.
func fakeSys(t *testing.T, nodes map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for node, name := range nodes {
		if err := os.MkdirAll(filepath.Join(dir, node), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, node, "name"), []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A Raspberry Pi without a camera has only its codec, ISP and decoder
// nodes (/dev/video10 and up): no camera is present, so photo is not
// offered and no press fails.
func TestPresentPiWithoutCamera(t *testing.T) {
	pi := map[string]string{
		"video10": "bcm2835-codec-decode", "video11": "bcm2835-codec-encode", "video12": "bcm2835-codec-isp",
		"video13": "bcm2835-isp", "video14": "bcm2835-isp", "video15": "bcm2835-isp", "video16": "bcm2835-isp",
		"video18": "bcm2835-codec-image_fx", "video19": "rpi-hevc-dec", "video20": "pispbe",
		"video31": "bcm2835-codec-encode_image",
	}
	for _, dev := range []string{"", "usb-0000:01:00.0-1.4-video-index0"} {
		if present(dev, fakeSys(t, pi)) {
			t.Errorf("present(%q) on a Pi without a camera = true", dev)
		}
	}
	pi["video0"] = "HD Pro Webcam C920"
	if !present("", fakeSys(t, pi)) {
		t.Error("present(\"\") with a USB camera beside the codec nodes = false")
	}
	if present("", fakeSys(t, nil)) {
		t.Error("present(\"\") with no V4L2 node = true")
	}
}

func TestPresentPathsAndTestPattern(t *testing.T) {
	empty := fakeSys(t, nil)
	if !present(TestDevice, empty) {
		t.Error("the test pattern is always present")
	}
	f := filepath.Join(t.TempDir(), "video0")
	if present(f, empty) {
		t.Error("a missing device path is present")
	}
	os.WriteFile(f, nil, 0o600)
	if !present(f, empty) {
		t.Errorf("existing %s is not present", f)
	}
}
