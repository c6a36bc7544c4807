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
// a keyboard needs opening the device; the names usually say it.
func listKeyboardReaders(ctx context.Context) ([]Device, error) {
	return keyboardLinks(ctx, "/dev/input/by-id")
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
