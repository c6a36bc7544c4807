package accept

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/station"
)

// rpicamTimeout is env.camera's: it covers rpicam-hello --list-cameras
// (which configures every sensor mode) on a slow Pi.
const rpicamTimeout = 15 * time.Second

const (
	fixRPiTool   = "install rpicam-apps: `sudo apt install rpicam-apps-lite` (only in the Raspberry Pi archive, i.e. Raspberry Pi OS)"
	fixRPiListed = "check the ribbon cable (contacts facing the right way, latch closed), camera_auto_detect=1 in /boot/firmware/config.txt, reboot; camera.device must be rpicam:N for an N that `rpicam-hello --list-cameras` lists"
	fixRPiUnit   = "add DeviceAllow=char-media rw and DeviceAllow=char-dma_heap rw to the unit (`sudo systemctl edit acbridge`, as in systemd/acbridge.service), then restart it"
)

// unitPaths are where an installed acbridge unit lives, in systemd's
// order of precedence.
func unitPaths() []string {
	return []string{"/etc/systemd/system/acbridge.service", "/usr/lib/systemd/system/acbridge.service", "/lib/systemd/system/acbridge.service"}
}

// longer gives s a longer timeout.
func longer(s *step, d time.Duration) *step {
	s.timeout = max(s.timeout, d)
	return s
}

// envRPiCam is env.camera for a ribbon camera (dev is "rpicam:N"): it
// checks that rpicam-apps is installed, the camera listed, the media and
// DMA-heap nodes open to this user, and that an installed unit's device
// policy lets libcamera in.
func (r *runner) envRPiCam(ctx context.Context, t *T, dev string) error {
	n, _, err := camera.ParseRPi(dev)
	if err != nil {
		return failErr(err, "fix camera.device (acbridge run --check-config)")
	}
	for _, tool := range station.RPiCamTools() {
		if _, err := exec.LookPath(tool); err != nil {
			return failf(fixRPiTool, "%s is not installed", tool)
		}
	}
	list, err := camera.ListRPi(ctx)
	if err != nil {
		return failErr(err, fixRPiListed)
	}
	var listed []string
	found := false
	for _, s := range list {
		listed = append(listed, s.Device()+" ("+s.Model+")")
		found = found || s.Index == n
	}
	if !found {
		if len(listed) == 0 {
			listed = []string{"no camera"}
		}
		return failf(fixRPiListed, "rpicam-hello lists %s, not %s", strings.Join(listed, ", "), dev)
	}
	t.note("rpicam-hello lists %s", strings.Join(listed, ", "))
	nodes, _ := filepath.Glob("/dev/media*")
	heaps, _ := filepath.Glob("/dev/dma_heap/*")
	if len(heaps) == 0 {
		t.note("no /dev/dma_heap nodes: this kernel has no DMA heaps, and libcamera will fail with \"Could not open any dmaHeap device\"")
	}
	if denied := deniedNodes(append(nodes, heaps...), accessR|accessW); len(denied) > 0 {
		return failf(camera.WarnPermission.Fix, "user %s may not open %s", currentUser(), strings.Join(denied, ", "))
	}
	unit, missing, err := unitDeviceGaps(unitPaths())
	switch {
	case err != nil:
		return failErr(err, "")
	case unit == "":
		t.note("no installed acbridge unit found (%s): its DeviceAllow= was not checked", strings.Join(unitPaths(), ", "))
	case len(missing) > 0:
		return failf(fixRPiUnit, "%s lacks %s: under its device policy libcamera fails (\"Could not open any dmaHeap device\")", unit, strings.Join(missing, " and "))
	default:
		t.note("%s allows the media and DMA-heap devices", unit)
	}
	return nil
}

// unitDeviceGaps reads the first unit file of paths that exists, with its
// drop-ins (UNIT.d/*.conf next to it and in /etc), and returns it and the
// DeviceAllow= entries libcamera needs that it lacks under a closed or
// strict DevicePolicy. unit is "" when none is installed.
func unitDeviceGaps(paths []string) (unit string, missing []string, err error) {
	var files []string
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			unit = p
			files = append(files, p)
			break
		}
	}
	if unit == "" {
		return "", nil, nil
	}
	for _, dir := range slices.Compact([]string{unit + ".d", "/etc/systemd/system/" + filepath.Base(unit) + ".d"}) {
		confs, _ := filepath.Glob(filepath.Join(dir, "*.conf"))
		slices.Sort(confs)
		files = append(files, confs...)
	}
	policy := "auto"
	var allow []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return unit, nil, fmt.Errorf("read %s: %w", f, err)
		}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		for sc.Scan() {
			k, v, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
			if !ok {
				continue
			}
			switch strings.TrimSpace(k) {
			case "DevicePolicy":
				policy = strings.TrimSpace(v)
			case "DeviceAllow":
				if v = strings.TrimSpace(v); v == "" {
					allow = nil // an empty assignment resets the list
				} else {
					allow = append(allow, v)
				}
			}
		}
	}
	if policy != "closed" && policy != "strict" && len(allow) == 0 {
		return unit, nil, nil
	}
	need := map[string][]string{
		"DeviceAllow=char-media rw":    {"char-media"},
		"DeviceAllow=char-dma_heap rw": {"char-dma_heap", "/dev/dma_heap/"},
	}
	for _, want := range slices.Sorted(maps.Keys(need)) {
		if !slices.ContainsFunc(allow, func(a string) bool {
			f := append(strings.Fields(a), "rwm") // no access given means rwm
			if !strings.Contains(f[1], "r") || !strings.Contains(f[1], "w") {
				return false
			}
			return slices.ContainsFunc(need[want], func(p string) bool { return strings.HasPrefix(f[0], p) })
		}) {
			missing = append(missing, want)
		}
	}
	return unit, missing, nil
}
