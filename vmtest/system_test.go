package vmtest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// TestSystemTier boots a Debian 12 root with the amd64 package installed,
// systemd as PID 1, and checks acbridge.service as the package sets it up:
// its hardening, udev rules, polkit rule, provisioning unit and watchdog,
// on the device tier's kernel devices.
func TestSystemTier(t *testing.T) {
	r := bootSystem(t)
	t.Run("ready", r.testReady)
	t.Run("provisioned", r.testProvisioned)
	t.Run("kiosk-screen", r.testKioskScreen)
	t.Run("device-access", r.testDeviceAccess)
	t.Run("press-scan-photo", r.testServicePresses)
	t.Run("no-canary", r.noCanary("journalctl -b --no-pager -o cat; dmesg"))
	t.Run("kill-restart", r.testKillRestart)
	t.Run("watchdog", r.testWatchdog)
}

// bootSystem builds the system tier's disks with scripts/vm/system.sh and
// boots them with the CCID reader and the host's agent attached.
func bootSystem(t *testing.T) *rig {
	t.Helper()
	if os.Getenv("ACBRIDGE_VM") == "" {
		t.Skip("the VM tier runs under make test-vm (ACBRIDGE_VM=1)")
	}
	needs.Tool(t, "qemu-system-x86", "qemu-system-x86_64")
	needs.Tool(t, "e2fsprogs", "mkfs.ext4")
	needs.Tool(t, "dosfstools", "mkfs.vfat")
	needs.Tool(t, "mtools", "mcopy")
	needs.Tool(t, "debootstrap", "debootstrap")
	if os.Getuid() != 0 {
		needs.Unavailable(t, "the system tier's image is built as root (chroot, dpkg, file ownership)")
	}
	root, prepared, work := prepare(t)
	deb := os.Getenv("ACBRIDGE_DEB")
	if deb == "" {
		deb = newestDeb(filepath.Join(root, "dist"))
		if deb == "" {
			needs.Unavailable(t, "no dist/acbridge_*_amd64.deb: scripts/cross.sh amd64 && scripts/deb.sh amd64, or set ACBRIDGE_DEB")
		}
	}

	guestd := filepath.Join(work, "guestd")
	goBuild(t, root, guestd, "./vmtest/guestd", false)
	cfg := filepath.Join(work, "acbridge.toml")
	if err := os.WriteFile(cfg, []byte(systemConfig()), 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	img := exec.Command(filepath.Join(root, "scripts/vm/system.sh"), prepared, deb, guestd, cfg, work)
	img.Stdout, img.Stderr = nil, os.Stderr
	if msg, err := img.Output(); err != nil {
		t.Fatalf("scripts/vm/system.sh: %v\n%s", err, msg)
	}
	t.Logf("system image in %v", time.Since(start).Round(time.Second))

	r := &rig{debounce: systemDebounce, failLog: []string{"journalctl", "-b", "--no-pager", "-n", "200"}}
	// Under TCG on a loaded 2-core host the boot to guestd took 200 s.
	r.boot(t, work, Options{
		Prepared:  prepared,
		Initramfs: filepath.Join(work, "initrd.cpio"),
		Disks:     []string{filepath.Join(work, "root.img"), filepath.Join(work, "boot.img")},
		Append:    "systemd.show_status=error",
		Screen:    true,
		Memory:    2048, // Chromium, for the kiosk screen
	}, 8*time.Minute)
	return r
}

// systemDebounce is the system tier's button debounce: its guest, with
// systemd's services beside the daemon, bounces slower than the device
// tier's, and the bounce must fit inside the debounce to test it. The long
// press stays longer than the press's hold.
const systemDebounce = time.Second

func systemConfig() string {
	// The kiosk page for acbridge-kiosk.service (scripts/vm/system.sh
	// points the screen at 8081; 8080 is guestd's relay to the agent).
	return strings.ReplaceAll(daemonConfig, `debounce = "800ms"`, `debounce = "1s"
long_press = "5s"`) + "\n[kiosk]\nlisten = \"127.0.0.1:8081\"\n"
}

// newestDeb is the amd64 package scripts/deb.sh wrote last into dist:
// older versions may still lie beside it.
func newestDeb(dist string) string {
	debs, _ := filepath.Glob(filepath.Join(dist, "acbridge_*_amd64.deb"))
	var best string
	var bestTime time.Time
	for _, d := range debs {
		if fi, err := os.Stat(d); err == nil && fi.ModTime().After(bestTime) {
			best, bestTime = d, fi.ModTime()
		}
	}
	return best
}

// unit is a few of systemctl show's properties of a unit.
func (r *rig) unit(t *testing.T, name string, props ...string) map[string]string {
	t.Helper()
	rep := r.run(t, 20*time.Second, "systemctl", "show", "-p", strings.Join(props, ","), name)
	m := map[string]string{}
	for _, l := range strings.Split(rep.Stdout, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			m[k] = v
		}
	}
	return m
}

// waitActive waits until acbridge.service is active (for Type=notify:
// READY=1 sent) with a main process other than notPID.
func (r *rig) waitActive(t *testing.T, notPID string, timeout time.Duration) map[string]string {
	t.Helper()
	// One systemctl call for both, so that they are of the same moment.
	script := fmt.Sprintf(`until s=$(systemctl show -p ActiveState,MainPID acbridge.service) && echo "$s" | grep -qx ActiveState=active && ! echo "$s" | grep -qx MainPID=%s; do sleep 0.2; done`, notPID)
	rep, err := r.vm.Run(t.Context(), timeout, "sh", "-c", script)
	if err != nil || rep.Code != 0 {
		st, _ := r.vm.Run(t.Context(), 10*time.Second, "systemctl", "status", "--no-pager", "-l", "acbridge.service")
		t.Fatalf("acbridge.service not active within %v: %v\n%s", timeout, err, st.Stdout)
	}
	return r.unit(t, "acbridge.service", "MainPID", "StatusText", "NRestarts", "ActiveState", "SubState")
}

// journal is acbridge.service's output since this boot.
func (r *rig) journal(t *testing.T) string {
	t.Helper()
	return r.run(t, 20*time.Second, "journalctl", "-b", "-u", "acbridge.service", "-o", "cat", "--no-pager").Stdout
}

// waitJournal waits until sub appears n times in acbridge.service's output.
func (r *rig) waitJournal(t *testing.T, sub string, n int, timeout time.Duration) {
	t.Helper()
	script := fmt.Sprintf(`until [ "$(journalctl -b -u acbridge.service -o cat --no-pager | grep -c -F -e %q)" -ge %d ]; do sleep 0.2; done`, sub, n)
	rep, err := r.vm.Run(t.Context(), timeout, "sh", "-c", script)
	if err != nil || rep.Code != 0 {
		t.Fatalf("waiting for %q ×%d in acbridge.service's journal: %v\n%s", sub, n, err, r.journal(t))
	}
}

func (r *rig) testReady(t *testing.T) {
	u := r.waitActive(t, "0", 3*time.Minute)
	t.Logf("acbridge.service: %v", u)
	if !strings.Contains(u["StatusText"], "http://127.0.0.1:8080") {
		t.Errorf("StatusText %q, want the daemon's sd_notify status", u["StatusText"])
	}
	if u["NRestarts"] != "0" {
		t.Errorf("NRestarts %s before any fault: the service failed at start\n%s", u["NRestarts"], r.journal(t))
	}
	who := strings.TrimSpace(r.run(t, 10*time.Second, "ps", "-o", "user=", "-p", u["MainPID"]).Stdout)
	if who != "acbridge" {
		t.Errorf("daemon runs as %q, want acbridge", who)
	}
	// The hardening in force is the unit's, from the package.
	h := r.unit(t, "acbridge.service", "FragmentPath", "DevicePolicy", "ProtectSystem", "NoNewPrivileges", "DropInPaths")
	if h["FragmentPath"] != "/lib/systemd/system/acbridge.service" || h["DevicePolicy"] != "closed" || h["ProtectSystem"] != "strict" || h["NoNewPrivileges"] != "yes" {
		t.Errorf("acbridge.service's hardening not the package's: %v", h)
	}
}

func (r *rig) testProvisioned(t *testing.T) {
	fs := strings.TrimSpace(r.run(t, 10*time.Second, "findmnt", "-n", "-o", "FSTYPE", "/boot/firmware").Stdout)
	if fs != "vfat" {
		t.Errorf("/boot/firmware is %q, want the FAT boot partition", fs)
	}
	got := r.run(t, 10*time.Second, "sha256sum", "/etc/acbridge/acbridge.toml").Stdout
	sum := sha256.Sum256([]byte(systemConfig()))
	if !strings.HasPrefix(got, hex.EncodeToString(sum[:])) {
		t.Errorf("/etc/acbridge/acbridge.toml is not the boot partition's acbridge.toml")
	}
	p := r.unit(t, "acbridge-provision.service", "Result", "ExecMainExitTimestampMonotonic", "ExecMainStatus")
	d := r.unit(t, "acbridge.service", "ExecMainStartTimestampMonotonic")
	if p["Result"] != "success" || p["ExecMainStatus"] != "0" {
		t.Errorf("acbridge-provision.service: %v", p)
	}
	var pEnd, dStart int64
	fmt.Sscan(p["ExecMainExitTimestampMonotonic"], &pEnd)
	fmt.Sscan(d["ExecMainStartTimestampMonotonic"], &dStart)
	if pEnd == 0 || dStart < pEnd {
		t.Errorf("the daemon started at %d µs, before provisioning ended at %d µs", dStart, pEnd)
	}
	st := r.run(t, 10*time.Second, "stat", "-c", "%U:%G %a", "/etc/acbridge/acbridge.toml").Stdout
	if strings.TrimSpace(st) != "root:acbridge 640" {
		t.Errorf("installed configuration is %s, want root:acbridge 640", st)
	}
}

// granted is what the service user may open by its groups (not by the
// world bits every user has), as the udev rules and sysusers give it:
// the camera, the GPIO chips, the marked input device, sound, the UARTs.
// Group video also gives a camera's media controller (the unit allows
// char-media for libcamera) and vivid's CEC adapter, which the unit's
// DeviceAllow= does not list: the permission bits alone let it through.
var granted = regexp.MustCompile(`^/dev/(video\d+|media\d+|cec\d+|gpiochip\d+|input/event\d+|snd/.*|ttyS\d+)$`)

// testDeviceAccess: the udev rules give the service user the video node,
// the GPIO chips and the marked input device, and nothing else; the CCID
// reader stays pcscd's.
func (r *rig) testDeviceAccess(t *testing.T) {
	// Run alone (-run), the boot may still be going on.
	r.waitActive(t, "0", 3*time.Minute)
	r.run(t, 10*time.Second, "uinput-create")
	r.run(t, 30*time.Second, "udevadm", "settle", "-t", "20")
	kbd := strings.TrimSpace(r.sh(t, time.Minute, `for d in /sys/class/input/event*; do grep -q 'acbridge-vm RFID Reader' $d/device/name && echo /dev/input/${d##*/}; done; true`).Stdout)
	want := map[string]string{
		"/dev/video0": "root:video 660",
		kbd:           "root:acbridge 640",
	}
	for _, c := range strings.Fields(r.sh(t, 10*time.Second, "ls /dev/gpiochip*").Stdout) {
		want[c] = "root:gpio 660"
	}
	for node, mode := range want {
		got := strings.TrimSpace(r.run(t, 10*time.Second, "stat", "-c", "%U:%G %a", node).Stdout)
		if got != mode {
			t.Errorf("%s is %s, want %s (udev/70-acbridge.rules)", node, got, mode)
		}
	}
	// Every character device the service's credentials may open (the
	// user, its groups and the unit's SupplementaryGroups=), without the
	// ones every user may.
	rep := r.sh(t, 60*time.Second, `g=$( (id -G acbridge; for n in $(systemctl show -p SupplementaryGroups --value acbridge.service); do getent group $n | cut -d: -f3; done) | tr ' ' '\n' | sort -u | paste -sd,)
find /dev -type c ! -perm -o=r ! -perm -o=w | setpriv --reuid=$(id -u acbridge) --regid=$(id -g acbridge) --groups=$g sh -c 'while read -r f; do { [ -r "$f" ] || [ -w "$f" ]; } && echo "$f"; done; true'`)
	// The unit's device policy (DevicePolicy=closed, DeviceAllow=) is
	// the second lock: group video, which the camera needs, also opens
	// the screen's /dev/fb0 and /dev/dri/card*, and only the policy keeps
	// the service from them. systemd's char-NAME is the major's name in
	// /proc/devices.
	allowed := r.allowedMajors(t)
	var extra, have, policed []string
	for _, f := range strings.Fields(rep.Stdout) {
		major := strings.TrimSpace(r.run(t, 10*time.Second, "stat", "-c", "%t", f).Stdout)
		if n, err := strconv.ParseInt(major, 16, 32); err != nil || !allowed[int(n)] {
			policed = append(policed, f)
			continue
		}
		if granted.MatchString(f) {
			have = append(have, f)
			continue
		}
		extra = append(extra, f)
	}
	sort.Strings(have)
	t.Logf("the service user may open: %v", have)
	if len(extra) > 0 {
		t.Errorf("the service user may also open %v", extra)
	}
	t.Logf("its credentials also open %v, which the unit's DeviceAllow= refuses it", policed)
	for _, f := range policed {
		if want[f] != "" {
			t.Errorf("the unit's DeviceAllow= refuses %s, which the service needs", f)
		}
	}
	for node := range want {
		if !slices.Contains(have, node) {
			t.Errorf("the service user may not open %s", node)
		}
	}
	// Other input devices (QEMU's power button) are not the service's.
	if n := strings.Count(strings.Join(have, " "), "/dev/input/"); n != 1 {
		t.Errorf("the service user may open %d input devices, want only the marked reader", n)
	}
	usb := r.sh(t, 10*time.Second, `for d in /sys/bus/usb/devices/*; do [ "$(cat $d/idVendor 2>/dev/null)" = 08e6 ] && echo /dev/bus/usb/$(printf %03d $(cat $d/busnum))/$(printf %03d $(cat $d/devnum)); done; true`).Stdout
	usb = strings.TrimSpace(usb)
	if usb == "" {
		t.Errorf("no USB device for QEMU's CCID reader (08e6)")
	} else if slices.Contains(have, usb) {
		t.Errorf("the service user may open the CCID reader %s directly; it is pcscd's", usb)
	}
}

// allowedMajors are the character devices' majors acbridge.service's
// DeviceAllow= lets it open (char-NAME entries, named as in /proc/devices).
func (r *rig) allowedMajors(t *testing.T) map[int]bool {
	t.Helper()
	classes := map[string]bool{}
	for _, f := range strings.Fields(r.run(t, 10*time.Second, "systemctl", "show", "-p", "DeviceAllow", "--value", "acbridge.service").Stdout) {
		if c, ok := strings.CutPrefix(f, "char-"); ok {
			classes[c] = true
		}
	}
	if len(classes) == 0 {
		t.Fatal("acbridge.service has no DeviceAllow=char-… entries")
	}
	majors := map[int]bool{}
	inChar := false
	for _, l := range strings.Split(r.run(t, 10*time.Second, "cat", "/proc/devices").Stdout, "\n") {
		switch l = strings.TrimSpace(l); {
		case l == "Character devices:":
			inChar = true
		case l == "Block devices:":
			inChar = false
		case inChar:
			if n, name, ok := strings.Cut(l, " "); ok && classes[name] {
				m, _ := strconv.Atoi(n)
				majors[m] = true
			}
		}
	}
	return majors
}

// testServicePresses: through acbridge.service, a bouncy SCAN press on
// gpio-sim arms the reader once and lights the LED, a tap on the CCID card
// (pcscd, reached under the polkit rule) sends the alias, a PHOTO press
// sends a photo from vivid (DeviceAllow=char-video4linux).
func (r *rig) testServicePresses(t *testing.T) {
	r.waitJournal(t, "you can use: tag scan, photo]", 1, 60*time.Second)
	if v := r.ledValue(t); v != "0" {
		t.Errorf("LED line is %s before any press, want 0", v)
	}
	r.press(t, lineScan)
	r.waitJournal(t, "[reader armed", 1, 20*time.Second)
	if v := r.ledValue(t); v != "1" {
		t.Errorf("LED line is %s while the reader is armed, want 1", v)
	}
	if err := r.card.Insert(canary1); err != nil {
		t.Fatal(err)
	}
	r.waitJournal(t, "agent: Unknown object; no association stored.", 1, 30*time.Second)
	r.card.Remove()
	r.press(t, linePhoto)
	r.waitJournal(t, "agent: Received the photo; nothing stored.", 1, 60*time.Second)
	logs := r.journal(t)
	if n := strings.Count(logs, "[reader armed"); n != 1 {
		t.Errorf("one bouncy press armed the reader %d times, want once", n)
	}
	if n := strings.Count(logs, "press ignored"); n != 0 {
		t.Errorf("two bouncy presses made %d extra presses, want none", n)
	}
}

// testKillRestart: kill -9 of the daemon is restarted by systemd.
func (r *rig) testKillRestart(t *testing.T) {
	before := r.unit(t, "acbridge.service", "MainPID", "NRestarts")
	r.run(t, 10*time.Second, "kill", "-9", before["MainPID"])
	after := r.waitActive(t, before["MainPID"], 60*time.Second)
	if after["NRestarts"] == before["NRestarts"] {
		t.Errorf("NRestarts %s after kill -9, was %s", after["NRestarts"], before["NRestarts"])
	}
	t.Logf("after kill -9: %v", after)
}

// testWatchdog: a hung daemon (SIGSTOP) stops pinging the watchdog, and
// systemd kills and restarts it. WatchdogSec is the package's 30 s.
func (r *rig) testWatchdog(t *testing.T) {
	before := r.unit(t, "acbridge.service", "MainPID", "NRestarts", "WatchdogUSec")
	r.run(t, 10*time.Second, "kill", "-STOP", before["MainPID"])
	after := r.waitActive(t, before["MainPID"], 2*time.Minute)
	if after["NRestarts"] == before["NRestarts"] {
		t.Errorf("NRestarts %s after SIGSTOP, was %s", after["NRestarts"], before["NRestarts"])
	}
	sys := r.run(t, 20*time.Second, "journalctl", "-b", "-u", "acbridge.service", "--no-pager", "-o", "cat", "_PID=1").Stdout
	if !strings.Contains(sys, "Watchdog timeout") {
		t.Errorf("no watchdog timeout in systemd's log of acbridge.service:\n%s", sys)
	}
	t.Logf("watchdog %s: restarted as %v", before["WatchdogUSec"], after)
}
