package evdev

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// device is one evdev node as sysfs lists it.
type device struct {
	node string // "event3"
	name string
}

// listDevices reads the event devices under sysDir (/sys/class/input), in
// event-number order.
func listDevices(sysDir string) ([]device, error) {
	entries, err := os.ReadDir(sysDir)
	if err != nil {
		return nil, err
	}
	var devs []device
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "event") {
			continue
		}
		if _, err := strconv.Atoi(e.Name()[len("event"):]); err != nil {
			continue
		}
		name, err := readName(filepath.Join(sysDir, e.Name(), "device", "name"))
		if err != nil {
			continue // gone between ReadDir and now, or not readable
		}
		devs = append(devs, device{node: e.Name(), name: name})
	}
	sort.Slice(devs, func(i, j int) bool {
		a, _ := strconv.Atoi(devs[i].node[len("event"):])
		b, _ := strconv.Atoi(devs[j].node[len("event"):])
		return a < b
	})
	return devs, nil
}

// readName reads a sysfs name attribute, bounded like EVIOCGNAME's buffer.
func readName(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 256))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// findByName returns the path of the first event device named name (leading
// and trailing spaces do not count: some encoders pad their names), and how
// many devices carry that name.
func findByName(sysDir, devDir, name string) (string, int, error) {
	devs, err := listDevices(sysDir)
	if err != nil {
		return "", 0, fmt.Errorf("button/evdev: list input devices in %s: %w", sysDir, err)
	}
	want := strings.TrimSpace(name)
	var path string
	n := 0
	for _, d := range devs {
		if d.name == want {
			if n == 0 {
				path = filepath.Join(devDir, d.node)
			}
			n++
		}
	}
	if n > 0 {
		return path, n, nil
	}
	var names []string
	for i, d := range devs {
		if i == 8 {
			names = append(names, fmt.Sprintf("and %d more", len(devs)-i))
			break
		}
		names = append(names, strconv.Quote(truncate(d.name)))
	}
	present := "none"
	if len(names) > 0 {
		present = strings.Join(names, ", ")
	}
	return "", 0, notPresent{fmt.Sprintf("button/evdev: no input device named %q (is it plugged in?); devices present: %s", truncate(name), present)}
}

// notPresent is a keypad named in the configuration that is not plugged
// in: it reads as fs.ErrNotExist, as a missing device path does, so that a
// caller may wait for it (button.Await).
type notPresent struct{ msg string }

func (e notPresent) Error() string        { return e.msg }
func (e notPresent) Is(target error) bool { return target == fs.ErrNotExist }

func truncate(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}
