package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// A configured camera missing at start that is plugged in later leaves the
// status line: systemctl status stops saying it is missing, and the log
// says once that it appeared.
func TestRunMissingDeviceAppears(t *testing.T) {
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	dir := t.TempDir()
	// MissingDevices judges only /dev paths; a regular file stands in for
	// the device node, which the daemon opens only on a press.
	cam := fmt.Sprintf("/dev/video-acbridge-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(cam) })
	cfg := daemonConfig(ag.addr, nil, filepath.Join(dir, "keystore.json")) +
		"[modalities]\nenabled = [\"photo\"]\n[camera]\ndevice = \"" + cam + "\"\n" +
		"[[button]]\ncontrol = \"photo\"\nsource = \"terminal\"\nchar = \"p\"\n"
	sock, status := notifySocket(t, dir)
	d := newDaemonFile(t, dir, cfg, "NOTIFY_SOCKET="+sock)
	d.start()
	d.wait(d.out, "[connected to", 1)
	d.wait(status, "STATUS=connected to ", 1)
	if !strings.Contains(status.String(), "; missing: camera.device "+cam) {
		t.Fatalf("the status line does not name the missing camera:\n%s", status.String())
	}

	if err := os.WriteFile(cam, nil, 0o600); err != nil {
		if os.Getenv("ACBRIDGE_REQUIRE_SERVICES") == "1" {
			t.Fatalf("cannot stand in for a device under /dev (needs root): %v", err)
		}
		t.Skipf("cannot stand in for a device under /dev (needs root): %v", err)
	}
	d.wait(d.err, `msg="configured device appeared" key=camera.device`, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	err := status.WaitText(ctx, func(s string) bool {
		last := lastLines(s, 1)
		return strings.HasPrefix(last, "STATUS=connected to ") && !strings.Contains(last, "missing")
	})
	if err != nil {
		t.Fatalf("the status line still names the camera once it is there: %v\n%s", err, status.String())
	}
}

// newDaemonFile prepares `acbridge run --stdin-text` with the configuration
// cfg written to dir and env added to its environment, without starting it.
func newDaemonFile(t *testing.T, dir, cfg string, env ...string) *daemonProc {
	t.Helper()
	path := filepath.Join(dir, "acbridge.toml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := &daemonProc{t: t, out: &bridgetest.Transcript{}, err: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	d.cmd = exec.Command(os.Args[0], "run", "--config", path, "--stdin-text")
	d.cmd.Env = append(append(os.Environ(), "ACBRIDGE_RUN_MAIN=1"), env...)
	d.cmd.Stdout, d.cmd.Stderr = d.out, d.err
	d.stdin, _ = d.cmd.StdinPipe()
	return d
}

// A keypad configured but not plugged in at start does not stop the
// daemon: it starts with the keypad named on the status line, and once the
// keypad appears its buttons work (a real process; a FIFO stands in for
// the input device).
func TestRunMissingKeypadAppears(t *testing.T) {
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	dir := t.TempDir()
	keypad := filepath.Join(dir, "keys")
	cfg := daemonConfig(ag.addr, nil, filepath.Join(dir, "keystore.json")) +
		"[modalities]\nenabled = [\"photo\"]\n[camera]\ndevice = \"VideoTest\"\n" +
		"[[button]]\ncontrol = \"photo\"\nsource = \"evdev\"\ndevice = \"" + keypad + "\"\nkey = \"KEY_P\"\n"
	sock, status := notifySocket(t, dir)
	d := newDaemonFile(t, dir, cfg, "NOTIFY_SOCKET="+sock)
	d.start()
	d.wait(d.out, "[connected to", 1)
	d.wait(status, "STATUS=connected to ", 1)
	if !strings.Contains(status.String(), "; missing: button[0].device "+keypad) {
		t.Fatalf("the status line does not name the missing keypad:\n%s", status.String())
	}
	d.wait(d.err, "keypad missing: its buttons work once it is plugged in", 1)

	if err := syscall.Mkfifo(keypad, 0o600); err != nil {
		t.Fatal(err)
	}
	// O_RDWR: opening never blocks, and the FIFO never reports end of file.
	keys, err := os.OpenFile(keypad, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keys.Close() })
	d.keys = keys
	d.wait(d.err, "a device that was missing is there now", 1)
	d.press(keyP)
	d.wait(d.out, "[photo sent]", 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := status.WaitText(ctx, func(s string) bool { return !strings.Contains(lastLines(s, 1), "missing") }); err != nil {
		t.Fatalf("the status line still names the keypad once it is there: %v\n%s", err, status.String())
	}
}
