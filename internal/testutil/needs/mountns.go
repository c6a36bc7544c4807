package needs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountNSEnv tells the re-executed test binary which directory it mounts in.
const mountNSEnv = "ACBRIDGE_TEST_MOUNTNS_DIR"

// MountNamespace runs the calling test again inside a private mount
// namespace (`unshare -m`, util-linux; root, as CI runs), so that it may
// mount a real tmpfs or overlay without touching the machine's mounts.
// Outside, it runs the test binary and returns its output with inside
// false, ending the test when unshare is missing or refused (Unavailable)
// or the inner run fails. Inside, it returns a private directory and true.
func MountNamespace(t *testing.T) (dir string, out string, inside bool) {
	t.Helper()
	if d := os.Getenv(mountNSEnv); d != "" {
		return d, "", true
	}
	unshare := Tool(t, "util-linux", "unshare")
	dir = t.TempDir()
	cmd := exec.Command(unshare, "-m", "--propagation", "private", os.Args[0], "-test.run", "^"+t.Name()+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), mountNSEnv+"="+dir)
	b, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(b), "unshare failed") {
		Unavailable(t, "unshare -m refused (it needs root): "+strings.TrimSpace(string(b)))
	}
	t.Logf("in the mount namespace:\n%s", b)
	if err != nil {
		t.Fatalf("the test in the mount namespace failed: %v", err)
	}
	return dir, string(b), false
}

// MountTmpfs mounts a tmpfs on dir, in a MountNamespace.
func MountTmpfs(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "mode=0700"); err != nil {
		Unavailable(t, "mount tmpfs "+dir+": "+err.Error())
	}
}

// Tmpfs runs the calling test again inside a MountNamespace with a fresh
// tmpfs mounted on the directory it returns, with inside true. Outside,
// it returns inside false after checking that the inner run logged want:
// the inner test says (t.Log) what it saw, so that a skipped inner run is
// not mistaken for a pass.
func Tmpfs(t *testing.T, want string) (dir string, inside bool) {
	t.Helper()
	ns, out, inside := MountNamespace(t)
	if !inside {
		if !strings.Contains(out, want) {
			t.Errorf("the run in the mount namespace did not log %q", want)
		}
		return "", false
	}
	dir = filepath.Join(ns, "state")
	MountTmpfs(t, dir)
	return dir, true
}
