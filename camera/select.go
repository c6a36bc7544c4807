package camera

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/pion/mediadevices/pkg/driver"
	v4l2 "github.com/pion/mediadevices/pkg/driver/camera"
	_ "github.com/pion/mediadevices/pkg/driver/videotest" // registers the TestDevice driver
)

// The videotest driver registers itself once, at init, in mediadevices'
// global manager, and v4l2.Initialize (our hotplug rescan) deletes every
// video driver from that manager. Keep our own reference to it.
var (
	testOnce   sync.Once
	testDriver driver.Driver
	scanMu     sync.Mutex
)

func findTestDriver() driver.Driver {
	testOnce.Do(func() {
		for _, d := range driver.GetManager().Query(driver.FilterVideoRecorder()) {
			if d.Info().Label == TestDevice {
				testDriver = d
			}
		}
	})
	return testDriver
}

func init() { findTestDriver() }

// candidates rescans V4L2 devices (so a camera plugged in since the last
// capture is found) and returns them plus the test driver.
func candidates() []driver.Driver {
	td := findTestDriver()
	scanMu.Lock()
	v4l2.Initialize()
	list := driver.GetManager().Query(driver.FilterDeviceType(driver.Camera))
	scanMu.Unlock()
	out := make([]driver.Driver, 0, len(list)+1)
	for _, d := range list {
		if d != td {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		pi, pj := out[i].Info().Priority, out[j].Info().Priority
		if pi != pj {
			return pi > pj
		}
		return out[i].Info().Label < out[j].Info().Label
	})
	if td != nil {
		out = append(out, td)
	}
	return out
}

// selectDriver finds want among drivers: "" is the first camera that is not
// the test pattern; otherwise an exact label, a ";"-separated part of one
// (V4L2 labels are "by-path-name;video0"), the device name, or a device
// path (compared by its base name and, for symlinks such as
// /dev/v4l/by-id/..., by the base name of the node it points to).
func selectDriver(drivers []driver.Driver, want string) (driver.Driver, error) {
	var keys []string
	if strings.HasPrefix(want, "/") {
		keys = append(keys, filepath.Base(want))
		if real, err := filepath.EvalSymlinks(want); err == nil {
			keys = append(keys, filepath.Base(real))
		}
	}
	if want == "" {
		return firstCamera(drivers)
	}
	var labels []string
	for _, d := range drivers {
		info := d.Info()
		labels = append(labels, info.Label)
		if info.Label == want || strings.SplitN(info.Name, v4l2.LabelSeparator, 2)[0] == want {
			return d, nil
		}
		for _, part := range strings.Split(info.Label, v4l2.LabelSeparator) {
			if part == want {
				return d, nil
			}
			for _, k := range keys {
				if part == k {
					return d, nil
				}
			}
		}
	}
	return nil, fmt.Errorf("%w (wanted %.64q; connected: %.200s)", ErrNotFound, want, strings.Join(labels, ", "))
}

// firstCamera picks the camera for an empty Device: the first V4L2 node
// that answered its capability query with a name. mediadevices registers
// every /dev/video* node, and on a Raspberry Pi the codec and ISP nodes
// (/dev/video10 and up) are not cameras; its discovery leaves their name
// empty because the query as a capture device fails. A node without a name
// is taken only when there is nothing better (a busy camera also has none).
func firstCamera(drivers []driver.Driver) (driver.Driver, error) {
	var fallback driver.Driver
	for _, d := range drivers {
		info := d.Info()
		if info.Label == TestDevice {
			continue
		}
		if strings.SplitN(info.Name, v4l2.LabelSeparator, 2)[0] != "" {
			return d, nil
		}
		if fallback == nil {
			fallback = d
		}
	}
	if fallback == nil {
		return nil, fmt.Errorf("%w (none connected)", ErrNotFound)
	}
	return fallback, nil
}

// classify maps driver errors to the sentinels, keeping the cause.
func classify(label, stage string, err error) error {
	var sentinel error
	switch {
	case errors.Is(err, syscall.EACCES):
		sentinel = ErrPermission
	case errors.Is(err, syscall.EPERM):
		sentinel = ErrDeviceDenied
	case errors.Is(err, syscall.EBUSY):
		sentinel = ErrBusy
	case errors.Is(err, syscall.ENOENT), errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.ENXIO),
		errors.Is(err, syscall.EIO):
		sentinel = ErrUnplugged
	default:
		return fmt.Errorf("camera: %s: %s: %w", label, stage, err)
	}
	return fmt.Errorf("%w (%s: %s: %v)", sentinel, label, stage, err)
}
