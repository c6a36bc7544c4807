package station

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// keyboardNodes lists the event devices under sysInput (/sys/class/input)
// that can type a UID — digits and Enter — and that no by-id link names:
// udev makes those links for USB devices only, so a reader on another bus
// (Bluetooth, I2C, uinput) or a system without udev would be invisible.
// Their /dev/input/eventN names may change between boots; the description
// is the kernel's name for matching them.
func keyboardNodes(ctx context.Context, sysInput string, linked map[string]bool) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(sysInput)
	if err != nil {
		return []Device{}, nil // no input subsystem: nothing to list
	}
	out := []Device{}
	for _, e := range ents {
		ev := e.Name()
		if !strings.HasPrefix(ev, "event") || linked[ev] {
			continue
		}
		caps, err := os.ReadFile(filepath.Join(sysInput, ev, "device/capabilities/key"))
		if err != nil || !typesDigits(string(caps)) {
			continue
		}
		name, _ := os.ReadFile(filepath.Join(sysInput, ev, "device/name"))
		out = append(out, Device{Name: "/dev/input/" + ev, Attrs: map[string]any{
			"input": ev, "description": strings.TrimSpace(string(name)), "stableLink": false,
		}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// typesDigits reports whether a key capability bitmap (hex words, the
// lowest last) has KEY_1…KEY_0 (codes 2 to 11) and KEY_ENTER (28): all in
// the lowest word, whether the kernel's words are 32 or 64 bits.
func typesDigits(bitmap string) bool {
	f := strings.Fields(bitmap)
	if len(f) == 0 {
		return false
	}
	low, err := strconv.ParseUint(f[len(f)-1], 16, 64)
	if err != nil {
		return false
	}
	const want = 0xFFC | 1<<28
	return low&want == want
}
