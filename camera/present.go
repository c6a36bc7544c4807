package camera

import (
	"os"
	"path/filepath"
	"strings"
)

// sysVideo is where the kernel lists V4L2 nodes with their names.
const sysVideo = "/sys/class/video4linux"

// notCameras are the kernel names of V4L2 nodes that are no camera: a
// Raspberry Pi registers its codec, ISP and decoder as /dev/video10 and up
// whether or not a camera is connected (the same nodes firstCamera passes
// over), and a Pi 5 its ISP back end. The CSI receivers of ribbon cameras
// (unicam on a Pi 4 and earlier, rp1-cfe on a Pi 5) deliver raw sensor
// data that only libcamera can process: they are reached as "rpicam:N".
var notCameras = []string{"bcm2835-codec", "bcm2835-isp", "rpi-hevc-dec", "pispbe", "unicam", "rp1-cfe"}

// Present reports whether the camera device names (as Config.Device) is
// connected now: TestDevice always is; a device path when its node exists;
// "rpicam:N" when `rpicam-hello --list-cameras` lists camera N; any other
// name (empty, a label) when at least one V4L2 node is a camera, and "auto"
// also when rpicam-hello lists a camera. It opens no V4L2 device, so a
// presence check never lights a camera's LED. The V4L2 check reads only
// sysfs; the rpicam one runs rpicam-hello (a second or two on a Pi), so
// callers that check often cache it.
func Present(device string) bool { return present(device, sysVideo) }

func present(device, sysDir string) bool {
	if device == TestDevice {
		return true
	}
	if strings.HasPrefix(device, "/") {
		_, err := os.Stat(device)
		return err == nil
	}
	if n, ok, err := ParseRPi(device); ok {
		return err == nil && rpiListed(n)
	}
	if v4l2Present(sysDir) {
		return true
	}
	return device == Auto && rpiListed(-1)
}

// v4l2Present reports whether a V4L2 node under sysDir is a camera.
func v4l2Present(sysDir string) bool {
	nodes, _ := filepath.Glob(filepath.Join(sysDir, "video*"))
	for _, n := range nodes {
		if isCamera(n) {
			return true
		}
	}
	return false
}

// isCamera reports whether the sysfs node dir is a camera: a node whose
// name cannot be read counts as one, as before, so that an unusual kernel
// is not told it has no camera.
func isCamera(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "name"))
	if err != nil {
		return true
	}
	name := strings.TrimSpace(string(b))
	for _, nc := range notCameras {
		if strings.HasPrefix(name, nc) {
			return false
		}
	}
	return true
}
