package station

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/config"
)

// Missing is a device the configuration names by path that is not on this
// machine, with what is there instead.
type Missing struct {
	Key     string // the configuration key, such as camera.device
	Path    string
	Instead string // what this machine has of the kind, such as "cameras here: /dev/video0 (USB2.0 HD UVC WebCam)"
}

func (m Missing) String() string {
	return fmt.Sprintf("%s %s does not exist; %s", m.Key, m.Path, m.Instead)
}

// MissingDevices lists the configured device paths that do not exist, as a
// technician sees them (doctor, start-up): a wrong /dev/video7 or keypad
// path is named with its key and with what this machine has instead. It
// opens nothing. Devices named otherwise (a camera label, an evdev name)
// are judged by the code that opens them.
func MissingDevices(cfg *config.Config) []Missing {
	var out []Missing
	if d := cfg.Camera.Device; cfg.Enabled("photo") && strings.HasPrefix(d, "/dev/") && !exists(d) {
		out = append(out, Missing{Key: "camera.device", Path: d, Instead: "cameras here: " + camerasHere()})
	}
	for i, b := range cfg.Buttons {
		if b.Source == "evdev" && b.Device != "" && !exists(b.Device) {
			out = append(out, Missing{Key: fmt.Sprintf("button[%d].device", i), Path: b.Device, Instead: "keypads here: " + keypadsHere()})
		}
	}
	if d := cfg.NFC.Device; d != "" && cfg.NFC.Driver != "pcsc" && strings.HasPrefix(d, "/dev/") && !exists(d) {
		out = append(out, Missing{Key: "nfc.device", Path: d, Instead: "acbridge devices lists the readers and serial ports here"})
	}
	return out
}

// NoControls is the warning for a configuration with no button and no
// kiosk page, which starts but that nobody can use; "" otherwise.
func NoControls(cfg *config.Config) string {
	if len(cfg.Buttons) > 0 || cfg.Kiosk.Listen != "" {
		return ""
	}
	return "no [[button]] and no kiosk page (kiosk.listen): nobody at the kiosk can scan, take a photo or cancel; only lines typed under --stdin-text reach the agent"
}

// WarnMissing logs each configured device that is missing, once, at WARN
// with its key: the daemon starts without it and uses it once plugged. A
// configuration without any control is warned about too.
func WarnMissing(cfg *config.Config, log *slog.Logger) []Missing {
	if w := NoControls(cfg); w != "" {
		log.Warn("no controls", "why", w)
	}
	ms := MissingDevices(cfg)
	for _, m := range ms {
		log.Warn("configured device missing", "key", m.Key, "why", m.String())
	}
	return ms
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// camerasHere describes the V4L2 capture devices, the test pattern left
// out: it is no hardware.
func camerasHere() string {
	var names []string
	for _, c := range camera.List() {
		if c.Test || c.Node == "" || c.Name == "" {
			continue
		}
		names = append(names, fmt.Sprintf("/dev/%s (%s)", c.Node, c.Name))
	}
	if len(names) == 0 {
		return "none (acbridge devices lists what there is)"
	}
	return strings.Join(names, ", ")
}

// keypadsHere lists the stable keypad paths the kernel offers.
func keypadsHere() string {
	paths, _ := filepath.Glob("/dev/input/by-id/*-event-kbd")
	if len(paths) == 0 {
		return "none under /dev/input/by-id (acbridge devices lists the input devices)"
	}
	return strings.Join(paths, ", ")
}

// Absent says why the camera is not there, for the notice of a PHOTO press
// that cannot be answered.
func (p *Photo) Absent() string {
	if p.device == "" {
		return "no camera is connected; cameras here: " + camerasHere()
	}
	return fmt.Sprintf("no camera at %s (camera.device); cameras here: %s", p.device, camerasHere())
}
