package vmtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// guestLibFiles are the host files, beside the binaries' shared libraries,
// that the guest's pcscd, libccid and ALSA read. The host is Debian 12 like
// the packages they come from (scripts/install-deps.sh installs them).
var guestLibFiles = []string{
	"/usr/sbin/pcscd",
	"/usr/lib/pcsc/drivers/ifd-ccid.bundle",
	"/etc/libccid_Info.plist",
	"/usr/share/alsa",
	"/bin/busybox",
	// miniaudio opens ALSA at run time; ldd does not name it.
	"/usr/lib/x86_64-linux-gnu/libasound.so.2",
	// glibc opens it when a thread exits: pcscd aborts without it.
	"/usr/lib/x86_64-linux-gnu/libgcc_s.so.1",
}

// guestTools play into and record from the loopback sound card as the
// person in front of the kiosk and the ear beside its speaker.
var guestTools = []string{"/usr/bin/aplay", "/usr/bin/arecord"}

// initScript is the guest's PID 1: kernel file systems, the modules in
// dependency order (v4l2loopback as /dev/video9, a camera once fed), an
// unlabelled GPIO simulator chip and then one labelled as the Raspberry
// Pi's header (so that "header" is found by label), loopback and the
// forwarded network, pcscd, then guestd.
const initScript = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /tmp /run/pcscd /var/run /var/lib/acbridge
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
for m in $(cat /lib/modules/order); do
  case $m in
    vivid.ko) args="n_devs=1 node_types=0x1" ;;
    v4l2loopback.ko) args="video_nr=9 card_label=acbridge-vm-mjpeg exclusive_caps=1" ;;
    *) args="" ;;
  esac
  insmod /lib/modules/$m $args || echo "vm-init: insmod $m failed"
done
mount -t configfs none /sys/kernel/config
d=/sys/kernel/config/gpio-sim/decoy
mkdir $d $d/gpio-bank0
echo 8 > $d/gpio-bank0/num_lines
echo 1 > $d/live
g=/sys/kernel/config/gpio-sim/header
mkdir $g $g/gpio-bank0
echo 54 > $g/gpio-bank0/num_lines
echo pinctrl-bcm2835 > $g/gpio-bank0/label
echo 1 > $g/live || echo "vm-init: gpio-sim chip failed"
ip link set lo up
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
ip route add default via 10.0.2.2
pcscd --foreground --error > /tmp/pcscd.log 2>&1 &
exec /usr/bin/guestd :7000 127.0.0.1:8080=10.0.2.100:80 < /dev/console > /dev/console 2>&1
`

// BuildInitramfs writes the device tier's initramfs (an uncompressed newc
// cpio archive) to out: busybox, pcscd with libccid, the prepared modules,
// acbridge and guestd, each binary with the shared libraries ldd names.
func BuildInitramfs(prepared, acbridge, guestd, out string) error {
	stage, err := os.MkdirTemp(filepath.Dir(out), "initramfs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(stage)
	for _, d := range []string{"proc", "sys", "dev", "bin", "usr/bin", "etc", "lib/modules"} {
		if err := os.MkdirAll(filepath.Join(stage, d), 0o755); err != nil {
			return err
		}
	}
	for _, f := range guestLibFiles {
		if err := copyInto(stage, f); err != nil {
			return err
		}
	}
	for _, bin := range append([]string{"/usr/sbin/pcscd", "/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Linux/libccid.so", acbridge}, guestTools...) {
		if err := copyLibs(stage, bin); err != nil {
			return err
		}
	}
	for _, bin := range guestTools {
		if err := copyFile(bin, filepath.Join(stage, bin), 0o755); err != nil {
			return err
		}
	}
	if err := copyFile(acbridge, filepath.Join(stage, "usr/bin/acbridge"), 0o755); err != nil {
		return err
	}
	if err := copyFile(guestd, filepath.Join(stage, "usr/bin/guestd"), 0o755); err != nil {
		return err
	}
	order, err := os.ReadFile(filepath.Join(prepared, "modules.order"))
	if err != nil {
		return fmt.Errorf("%w (run scripts/vm/prepare.sh)", err)
	}
	for _, m := range strings.Fields(string(order)) {
		if err := copyFile(filepath.Join(prepared, "modules", m), filepath.Join(stage, "lib/modules", m), 0o644); err != nil {
			return err
		}
	}
	files := map[string]string{
		"lib/modules/order": string(order),
		"init":              initScript,
		"etc/passwd":        "root:x:0:0:root:/root:/bin/sh\n",
		"etc/group":         "root:x:0:\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(stage, name), []byte(body), 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	find := exec.Command("find", ".", "-mindepth", "1")
	find.Dir = stage
	list, err := find.Output()
	if err != nil {
		return err
	}
	cpio := exec.Command("cpio", "--quiet", "-o", "-H", "newc")
	var msg bytes.Buffer
	cpio.Dir, cpio.Stdin, cpio.Stdout, cpio.Stderr = stage, bytes.NewReader(list), f, &msg
	if err := cpio.Run(); err != nil {
		return fmt.Errorf("cpio: %v: %s", err, msg.String())
	}
	return f.Close()
}

// copyLibs copies the shared libraries bin links to, at their own paths.
func copyLibs(stage, bin string) error {
	out, err := exec.Command("ldd", bin).Output()
	if err != nil {
		return fmt.Errorf("ldd %s: %w", bin, err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, field := range strings.Fields(line) {
			if strings.HasPrefix(field, "/") {
				if err := copyInto(stage, field); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// copyInto copies the file, directory or symbolic link at path (following
// the links to their targets too) to the same path under stage.
func copyInto(stage, path string) error {
	dst := filepath.Join(stage, path)
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	// A library's directory may itself be a link (/lib is /usr/lib on a
	// merged-/usr system); cp --parents keeps the layout the loader expects.
	cmd := exec.Command("cp", "-a", "--parents", path, stage)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("cp %s: %v: %s", path, err, msg)
	}
	if target, err := os.Readlink(path); err == nil {
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		return copyInto(stage, target)
	}
	return nil
}

func copyFile(src, dst string, mode os.FileMode) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, b, mode)
}
