package keystore

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Mount is the filesystem that holds a path, from /proc/self/mountinfo.
type Mount struct {
	Point, FSType, Source string
}

// volatileTypes lose their content at reboot: RAM filesystems, and the
// overlay Raspberry Pi OS's read-only root puts over the SD card (its
// upper layer is a tmpfs).
var volatileTypes = map[string]bool{"tmpfs": true, "ramfs": true, "overlay": true}

// Volatile reports whether m loses its content at reboot.
func (m Mount) Volatile() bool { return volatileTypes[m.FSType] }

// MountOf finds the mount that holds path, which need not exist yet (its
// nearest existing ancestor decides). mountinfo is the mount table,
// "" meaning /proc/self/mountinfo.
func MountOf(path, mountinfo string) (Mount, error) {
	if mountinfo == "" {
		mountinfo = "/proc/self/mountinfo"
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return Mount{}, err
	}
	for {
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
			break
		} else if !errors.Is(err, fs.ErrNotExist) || abs == filepath.Dir(abs) {
			return Mount{}, fmt.Errorf("keystore: %w", err)
		}
		abs = filepath.Dir(abs)
	}
	f, err := os.Open(mountinfo)
	if err != nil {
		return Mount{}, fmt.Errorf("keystore: reading the mount table: %w", err)
	}
	defer f.Close()
	var best Mount
	found := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		m, ok := parseMountinfo(sc.Text())
		// The later of two mounts on one point is the one on top, so
		// ties go to the later line.
		if ok && within(abs, m.Point) && (!found || len(m.Point) >= len(best.Point)) {
			best, found = m, true
		}
	}
	if err := sc.Err(); err != nil {
		return Mount{}, fmt.Errorf("keystore: reading the mount table: %w", err)
	}
	if !found {
		return Mount{}, fmt.Errorf("keystore: no mount holds %s", abs)
	}
	return best, nil
}

func within(path, point string) bool {
	return point == "/" || path == point || strings.HasPrefix(path, point+"/")
}

// parseMountinfo reads one line of proc(5)'s mountinfo: "36 35 98:0
// /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw".
func parseMountinfo(line string) (Mount, bool) {
	f := strings.Fields(line)
	sep := -1
	for i := 6; i < len(f); i++ {
		if f[i] == "-" {
			sep = i
			break
		}
	}
	if len(f) < 5 || sep < 0 || sep+2 >= len(f) {
		return Mount{}, false
	}
	return Mount{Point: unescape(f[4]), FSType: f[sep+1], Source: unescape(f[sep+2])}, true
}

// unescape undoes the kernel's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			var v byte
			ok := true
			for _, c := range []byte(s[i+1 : i+4]) {
				if c < '0' || c > '7' {
					ok = false
					break
				}
				v = v*8 + c - '0'
			}
			if ok {
				b.WriteByte(v)
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// CheckPersistent refuses a keystore path whose directory does not survive
// a reboot, with WarnVolatile's fix. The daemon calls it before
// creating the secret; doctor and accept before trusting one.
func CheckPersistent(path, mountinfo string) error {
	m, err := MountOf(filepath.Dir(path), mountinfo)
	if err != nil {
		return err
	}
	if m.Volatile() {
		return fmt.Errorf("%w (%s is on a %s mount)", WarnVolatile.Err("keystore"), m.Point, m.FSType)
	}
	return nil
}
