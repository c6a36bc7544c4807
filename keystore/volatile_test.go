package keystore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// A Raspberry Pi OS overlay root, as its mountinfo shows it.
const piOverlay = `22 1 0:21 / / rw,noatime - overlay overlayroot rw,lowerdir=/media/root-ro,upperdir=/media/root-rw/overlay
23 22 179:2 / /media/root-ro ro,relatime - ext4 /dev/mmcblk0p2 ro
24 22 0:22 / /media/root-rw rw,relatime - tmpfs tmpfs-root rw
30 22 8:1 / /srv/acbridge\040state rw,relatime shared:9 - ext4 /dev/sda1 rw
`

func TestMountOfParsesMountinfo(t *testing.T) {
	mi := filepath.Join(t.TempDir(), "mountinfo")
	if err := os.WriteFile(mi, []byte(piOverlay), 0o644); err != nil {
		t.Fatal(err)
	}
	// Paths that do not exist here resolve through their nearest
	// existing ancestor, "/", which the table says is the overlay.
	m, err := MountOf("/nonexistent-acbridge/var/lib/acbridge", mi)
	if err != nil || m.FSType != "overlay" || !m.Volatile() {
		t.Errorf("overlay root: %+v, %v", m, err)
	}
	if err := CheckPersistent("/nonexistent-acbridge/keystore.json", mi); health.Of(err) != WarnVolatile || !strings.Contains(err.Error(), "keystore.path") {
		t.Errorf("CheckPersistent on an overlay root = %v", err)
	}
	if p, ok := parseMountinfo(strings.Split(piOverlay, "\n")[3]); !ok || p.Point != "/srv/acbridge state" || p.FSType != "ext4" {
		t.Errorf("escaped mount point parsed as %+v", p)
	}
	if _, ok := parseMountinfo("garbage"); ok {
		t.Error("garbage parsed")
	}
}

// TestVolatileMountsInNamespace mounts a real tmpfs and a real overlay in
// a private mount namespace (unshare -m) and checks that the keystore
// refuses both, and accepts the directory beneath them.
func TestVolatileMountsInNamespace(t *testing.T) {
	dir, out, inside := needs.MountNamespace(t)
	if !inside {
		if !strings.Contains(out, "tmpfs: refused") {
			t.Error("the tmpfs keystore was not refused")
		}
		if !strings.Contains(out, "overlay: unsupported") && !strings.Contains(out, "overlay: refused") {
			t.Error("the overlay case did not run")
		}
		return
	}
	tmp := filepath.Join(dir, "tmpfs")
	needs.MountTmpfs(t, tmp)
	report(t, "tmpfs", filepath.Join(tmp, "acbridge", "keystore.json"))

	ov := filepath.Join(dir, "overlay")
	for _, d := range []string{"lower", "upper", "work", "merged"} {
		if err := os.MkdirAll(filepath.Join(ov, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", filepath.Join(ov, "lower"), filepath.Join(ov, "upper"), filepath.Join(ov, "work"))
	if err := syscall.Mount("overlay", filepath.Join(ov, "merged"), "overlay", 0, opts); err != nil {
		fmt.Printf("overlay: unsupported (%v)\n", err)
	} else {
		report(t, "overlay", filepath.Join(ov, "merged", "var", "lib", "acbridge", "keystore.json"))
	}
	// The directory the mounts sit in is the machine's own filesystem,
	// persistent unless the machine's temporary directory is a tmpfs.
	if m, err := MountOf(dir, ""); err == nil && !m.Volatile() {
		if err := CheckPersistent(filepath.Join(dir, "keystore.json"), ""); err != nil {
			t.Errorf("%s (%s) refused: %v", dir, m.FSType, err)
		}
	}
}

func report(t *testing.T, kind, path string) {
	err := CheckPersistent(path, "")
	if health.Of(err) != WarnVolatile {
		t.Errorf("%s: CheckPersistent(%s) = %v, want the volatile keystore problem", kind, path, err)
		return
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("%s: the check created %s", kind, path)
	}
	fmt.Printf("%s: refused: %v\n", kind, err)
}
