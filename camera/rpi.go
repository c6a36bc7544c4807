package camera

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentcall/acbridge/internal/procrun"
)

// Raspberry Pi ribbon cameras (Camera Module 2/3, HQ) give only raw sensor
// data over V4L2 on Bookworm; libcamera's rpicam-apps are the one way to a
// picture from a Go program (package camera/rpicam runs rpicam-still per
// capture). They are named "rpicam:N" in Config.Device and camera.device,
// N being the index `rpicam-hello --list-cameras` prints.
const (
	RPiPrefix   = "rpicam:"
	MaxRPiIndex = 7 // libcamera numbers cameras from 0; no Pi has more than 8 ports
	// RPiListTool lists the cameras; it ships with rpicam-apps (Raspberry
	// Pi archive only), as rpicam-still does.
	RPiListTool = "rpicam-hello"
	// Auto is the device name that lets Pick choose.
	Auto = "auto"
)

// rpiListTimeout bounds `rpicam-hello --list-cameras`: it opens and
// configures every sensor mode, a second or two on a Pi.
const rpiListTimeout = 10 * time.Second

// rpiListMax bounds what is read of the listing.
const rpiListMax = 64 << 10

// ErrNoRPiTool says rpicam-apps is not installed.
var ErrNoRPiTool = errors.New("camera: rpicam-apps is not installed (rpicam-hello and rpicam-still not on PATH): on Raspberry Pi OS `sudo apt install rpicam-apps-lite`; it is only in the Raspberry Pi archive")

// ParseRPi returns N when device is "rpicam:N". ok is false when device
// does not start with RPiPrefix; err says what is wrong with N.
func ParseRPi(device string) (n int, ok bool, err error) {
	rest, ok := strings.CutPrefix(device, RPiPrefix)
	if !ok {
		return 0, false, nil
	}
	n, err = strconv.Atoi(rest)
	if err != nil || n < 0 || n > MaxRPiIndex || rest != strconv.Itoa(n) {
		return 0, true, fmt.Errorf("%w: %.40q: want rpicam:N with N from 0 to %d, the index `%s --list-cameras` prints", ErrBadConfig, device, MaxRPiIndex, RPiListTool)
	}
	return n, true, nil
}

// RPiSensor is one camera as `rpicam-hello --list-cameras` lists it.
type RPiSensor struct {
	Index         int
	Model         string // imx708, imx219, imx477, ...
	Width, Height int    // the sensor's active area (or its largest mode)
	ID            string // libcamera's id: the device-tree path
}

// Device is the Config.Device name of s.
func (s RPiSensor) Device() string { return RPiPrefix + strconv.Itoa(s.Index) }

var (
	rpiCameraLine = regexp.MustCompile(`^\s*(\d+)\s*:\s*([^\s\[\]()]+)\s*(?:\[(?:(\d{1,5})x(\d{1,5}))?[^\]]*)?\]?\s*(?:\(([^)]*)\))?`)
	rpiModeSize   = regexp.MustCompile(`(\d{1,5})x(\d{1,5})\s*\[`)
)

// ParseRPiList reads the output of `rpicam-hello --list-cameras`:
//
//	0 : imx708 [4608x2592 10-bit RGGB] (/base/soc/i2c0mux/i2c@1/imx708@1a)
//	    Modes: 'SRGGB10_CSI2P' : 1536x864 [120.13 fps - (768, 432)/3072x1728 crop]
//	                             4608x2592 [14.35 fps - (0, 0)/4608x2592 crop]
//
// A camera without a size in brackets (rpicam-apps then prints
// "2 : ov5647 ] (...)") takes its largest mode's. Lines it
// does not know are skipped, so "No cameras available!" is an empty list.
func ParseRPiList(out string) []RPiSensor {
	var list []RPiSensor
	var fromModes []bool // the camera line gave no size: take the largest mode's
	for _, line := range strings.Split(out, "\n") {
		if m := rpiCameraLine.FindStringSubmatch(line); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil || n > MaxRPiIndex {
				continue
			}
			s := RPiSensor{Index: n, Model: procrun.Sanitize(m[2]), ID: procrun.Sanitize(m[5])}
			s.Width, _ = strconv.Atoi(m[3])
			s.Height, _ = strconv.Atoi(m[4])
			list = append(list, s)
			fromModes = append(fromModes, s.Width == 0 || s.Height == 0)
			continue
		}
		if len(list) == 0 || !fromModes[len(list)-1] {
			continue
		}
		last := &list[len(list)-1]
		for _, m := range rpiModeSize.FindAllStringSubmatch(line, -1) {
			w, _ := strconv.Atoi(m[1])
			h, _ := strconv.Atoi(m[2])
			if w*h > last.Width*last.Height {
				last.Width, last.Height = w, h
			}
		}
	}
	return list
}

// ListRPi runs `rpicam-hello --list-cameras` and returns the cameras it
// lists: ErrNoRPiTool when rpicam-apps is not installed, another error
// when the tool fails or hangs (it is killed after 10 s).
func ListRPi(ctx context.Context) ([]RPiSensor, error) {
	path, err := exec.LookPath(RPiListTool)
	if err != nil {
		return nil, ErrNoRPiTool
	}
	var out limitedBuffer
	out.max = rpiListMax
	res, err := procrun.Run(ctx, &procrun.Options{Path: path, Args: []string{"--list-cameras"}, Stdout: &out, Timeout: rpiListTimeout})
	switch {
	case err != nil:
		return nil, fmt.Errorf("camera: %s --list-cameras: %w", RPiListTool, err)
	case res.TimedOut:
		return nil, fmt.Errorf("camera: %s --list-cameras did not finish within %v and was killed: check the ribbon cable and `%s --list-cameras` by hand", RPiListTool, rpiListTimeout, RPiListTool)
	case res.Stopped:
		return nil, ctx.Err()
	case res.ExitCode != 0:
		return nil, fmt.Errorf("camera: %s --list-cameras exited with status %d: %q", RPiListTool, res.ExitCode, res.StderrLine)
	}
	return ParseRPiList(out.String()), nil
}

// rpiListed reports whether `rpicam-hello --list-cameras` lists camera n
// (any camera when n < 0). A missing or failing tool lists none.
func rpiListed(n int) bool {
	ctx, cancel := context.WithTimeout(context.Background(), rpiListTimeout)
	defer cancel()
	list, err := ListRPi(ctx)
	if err != nil {
		return false
	}
	for _, s := range list {
		if n < 0 || s.Index == n {
			return true
		}
	}
	return false
}

// Pick resolves an empty or "auto" device for a kiosk that may have a
// ribbon camera: the first V4L2 camera ("") when one is connected, else the
// first camera rpicam-hello lists ("rpicam:N"), else "" (so that a capture
// fails naming the V4L2 search). Any other name is returned unchanged. A
// ribbon camera is not hot-plugged, so deciding once at start is enough.
func Pick(ctx context.Context, device string) string { return pick(ctx, device, sysVideo) }

func pick(ctx context.Context, device, sysDir string) string {
	if device != "" && device != Auto {
		return device
	}
	if v4l2Present(sysDir) {
		return ""
	}
	if list, err := ListRPi(ctx); err == nil && len(list) > 0 {
		return list[0].Device()
	}
	return ""
}

// limitedBuffer keeps the first max bytes written and accepts (drops) the
// rest, so that a writer never blocks the program on a full pipe.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// MeanLuma is the mean luma of m in 8-bit levels (every 4th pixel of every
// 4th row), as Frame.MeanLuma reports it: for backends outside this
// package.
func MeanLuma(m *image.YCbCr) float64 { return meanLuma(m) }
