package vpcdtest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/needs"

	"github.com/ebfe/scard"

	"github.com/agentcall/acbridge/nfc/vpcd"
)

// Reader is the vpcd slot tests use; vpcd.DefaultAddr serves it.
const Reader = vpcd.DefaultReader

// lockPath is shared by all test processes that use the same reader: the
// system pcscd's, or the private one of a test run (scripts/pcscd.sh run),
// whose tests wait for none but each other.
var lockPath = func() string {
	name := "acbridge-vpcd.lock"
	if p := os.Getenv(vpcd.PortEnv); p != "" {
		name = "acbridge-vpcd-" + p + ".lock"
	}
	return filepath.Join(os.TempDir(), name)
}()

// Require skips or fails t unless pcscd answers and lists the vpcd reader,
// then holds the machine-wide vpcd lock until t ends.
func Require(t testing.TB) {
	t.Helper()
	lock(t)
	var err error
	// A freshly (re)started pcscd takes a moment to load its drivers.
	for deadline := time.Now().Add(3 * time.Second); ; {
		if err = probe(); err == nil {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	needs.Unavailable(t, "pcscd with the vsmartcard-vpcd driver is needed (scripts/pcscd.sh start): "+err.Error())
}

func lock(t testing.TB) {
	t.Helper()
	f, err := os.OpenFile(lockPath, os.O_CREATE|os.O_RDWR, 0o666)
	if err != nil {
		t.Fatalf("vpcd test lock: %v", err)
	}
	deadline := time.Now().Add(10 * time.Minute)
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			t.Fatalf("vpcd test lock %s: %v", lockPath, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { f.Close() }) // closing the last descriptor releases the lock
}

type probeError string

func (e probeError) Error() string { return string(e) }

func probe() error {
	ctx, err := scard.EstablishContext()
	if err != nil {
		return err
	}
	defer ctx.Release()
	readers, err := ctx.ListReaders()
	if err != nil {
		return err
	}
	if !slices.Contains(readers, Reader) {
		return probeError("reader " + Reader + " not listed")
	}
	return nil
}

// WaitTagPresent waits up to timeout until pcscd reports a card on Reader
// (want) or none, through a PC/SC context of its own: each
// SCardGetStatusChange returns at the reader's next change. A pcscd that is
// restarting is waited for.
func WaitTagPresent(t testing.TB, want bool, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var err error
	for time.Now().Before(deadline) {
		var done bool
		if done, err = waitPresence(want, deadline); done {
			return
		}
		time.Sleep(50 * time.Millisecond) // pcscd (re)starting: a real process
	}
	t.Fatalf("tag presence did not become %v (%v)", want, err)
}

// waitPresence reports whether the presence became want before deadline; an
// error means pcscd could not be asked.
func waitPresence(want bool, deadline time.Time) (bool, error) {
	ctx, err := scard.EstablishContext()
	if err != nil {
		return false, err
	}
	defer ctx.Release()
	rs := []scard.ReaderState{{Reader: Reader, CurrentState: scard.StateUnaware}}
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false, nil
		}
		err := ctx.GetStatusChange(rs, left)
		if errors.Is(err, scard.ErrTimeout) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if rs[0].EventState&scard.StatePresent != 0 == want {
			return true, nil
		}
		rs[0].CurrentState = rs[0].EventState &^ scard.StateChanged
	}
}

// PCSCDPid returns the pid of the running pcscd, 0 if none. pcscd keeps its
// pid file beside its socket; a private pcscd's socket directory is mounted
// on /run/pcscd in its own mount namespace.
func PCSCDPid() int {
	dir := "/run/pcscd"
	if s := os.Getenv("PCSCLITE_CSOCK_NAME"); s != "" {
		dir = filepath.Dir(s)
	}
	b, err := os.ReadFile(filepath.Join(dir, "pcscd.pid"))
	if err != nil {
		return 0
	}
	// pcscd writes the pid, a newline and a NUL.
	var pid int
	for _, c := range bytes.TrimSpace(b) {
		if c < '0' || c > '9' {
			break
		}
		pid = pid*10 + int(c-'0')
	}
	return pid
}

// RestartPCSCD stops pcscd (with SIGKILL if kill, as a crash would) and
// starts it again through scripts/pcscd.sh. It skips or fails t when the
// running pcscd is not the script's (for example systemd's), since then it
// cannot restart it.
func RestartPCSCD(t testing.TB, kill bool) {
	t.Helper()
	script := findScript(t)
	before := PCSCDPid()
	args := []string{"restart"}
	if kill {
		args = append(args, "--kill")
	}
	if out, err := exec.Command(script, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %v: %v\n%s", script, args, err, out)
	}
	if after := PCSCDPid(); after == 0 || after == before {
		needs.Unavailable(t, "pcscd was not restarted: it is not managed by scripts/pcscd.sh (stop the system pcscd and run scripts/pcscd.sh start)")
	}
}

// findScript locates scripts/pcscd.sh from the test's working directory (the
// package directory) by walking up to the module root.
func findScript(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "scripts", "pcscd.sh")
		}
		parent := filepath.Dir(dir)
		if parent == dir || !strings.HasPrefix(parent, "/") {
			t.Fatal("scripts/pcscd.sh: module root not found")
		}
		dir = parent
	}
}
