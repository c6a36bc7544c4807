package station

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// listKeyboardReaders lists the keyboard-class input devices by their
// stable /dev/input/by-id link: one of them is a reader that types UIDs
// (nfc.driver = "keyboard", nfc.device = the link). Telling a reader from
// a keyboard needs opening the device; the names usually say it. Devices
// that type digits but have no such link follow, by their event node.
func listKeyboardReaders(ctx context.Context) ([]Device, error) {
	links, err := keyboardLinks(ctx, "/dev/input/by-id")
	if err != nil {
		return nil, err
	}
	linked := make(map[string]bool, len(links))
	for _, d := range links {
		if ev, ok := d.Attrs["input"].(string); ok {
			linked[ev] = true
		}
	}
	nodes, err := keyboardNodes(ctx, "/sys/class/input", linked)
	return append(links, nodes...), err
}

func keyboardLinks(ctx context.Context, dir string) ([]Device, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Device{}, nil // no USB input device at all
	}
	if err != nil {
		return nil, err
	}
	out := []Device{}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), "-event-kbd") {
			continue
		}
		link := filepath.Join(dir, e.Name())
		target, _ := filepath.EvalSymlinks(link)
		out = append(out, Device{Name: link, Attrs: map[string]any{"input": filepath.Base(target)}})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
