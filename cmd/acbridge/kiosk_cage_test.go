package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/kiosk/kiosktest"
)

// nobody runs the screen when the test runs as root: cage refuses to run
// as root, and the unit never runs it so either.
const nobodyID = 65534

// The shipped unit's command lines, run as systemd would run them but on
// wlroots' headless back end (no screen here): kiosk-wait against a real
// `acbridge run`, then cage with Chromium on the page. The page loads and
// connects its live stream, the page's token is in no process's command
// line or environment, and when the browser dies cage exits too, so that
// the unit's Restart=always (TestKioskUnitText) starts both again.
func TestKioskUnitUnderCage(t *testing.T) {
	cage := needs.Tool(t, "cage", "cage")
	needs.Tool(t, "xwayland", "Xwayland")
	kiosktest.ChromiumPath(t)

	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	// Debug: the page's focus reports are logged at that level.
	d := newDaemon(t, t.TempDir(), ag.addr, "[kiosk]", `listen = "127.0.0.1:0"`, browserUser(t, true), "[log]", `level = "debug"`)
	// No reader: the screen is what is tested, and the machine's shared
	// pcscd stays free for the tests that take its lock.
	d.cmd.Env = append(d.cmd.Env, "PCSCLITE_CSOCK_NAME="+filepath.Join(t.TempDir(), "no-pcscd"))
	d.start()
	d.wait(d.err, "kiosk page ready", 1)
	m := regexp.MustCompile(`kiosk page ready.* url=(\S+)`).FindStringSubmatch(d.err.String())
	if m == nil {
		t.Fatalf("no kiosk URL in:\n%s", d.err.String())
	}
	pageURL := m[1]
	u := loadKioskUnit(t, pageURL)

	// ExecStartPre=: the test binary is acbridge.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pre := exec.CommandContext(ctx, os.Args[0], u.pre[1:]...)
	pre.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	if out, err := pre.CombinedOutput(); err != nil || !strings.Contains(string(out), "answers at "+pageURL) {
		t.Fatalf("ExecStartPre %q: %v\n%s", u.pre, err, out)
	}

	// ExecStart=, with the environment of a logind session and wlroots'
	// headless back end drawing in memory (no GPU here).
	base, err := os.MkdirTemp("", "acbridge-kiosk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	home, run := filepath.Join(base, "home"), filepath.Join(base, "run")
	cred := screenUser(t, base, home, run)
	screen := &bridgetest.Transcript{}
	cmd := exec.Command(cage, u.exec[1:]...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + run, "LANG=C.UTF-8",
		"WLR_BACKENDS=headless", "WLR_LIBINPUT_NO_DEVICES=1", "WLR_RENDERER=pixman"}
	cmd.Stdout, cmd.Stderr = screen, screen
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: cred}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	exited := make(chan struct{}) // closed when cage has exited
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// The browser's helpers outlive cage when it is killed: the group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
	})
	wctx, wcancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer wcancel()
	// A browser that crashes ends cage: no need to wait the full bound.
	go func() {
		select {
		case <-exited:
			wcancel()
		case <-wctx.Done():
		}
	}()
	if err := d.err.Wait(wctx, "kiosk: page connected", 1); err != nil {
		select {
		case <-exited:
			err = errors.New("cage exited first")
		default:
		}
		t.Fatalf("the page did not connect from the browser under cage: %v\ncage and chromium:\n%s\nacbridge:\n%s", err, tail(screen.String(), 4000), d.err.String())
	}
	t.Logf("the page connected from Chromium under headless cage %s after the start (%s)",
		time.Since(started).Round(time.Millisecond), strings.Join(u.exec, " "))
	// ExecStartPost=: the screen counts as started once the page shows.
	post := exec.CommandContext(wctx, os.Args[0], u.post[1:]...)
	post.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	if out, err := post.CombinedOutput(); err != nil || !strings.Contains(string(out), "is shown from "+pageURL) {
		t.Errorf("ExecStartPost %q: %v\n%s", u.post, err, out)
	}
	// cage gives its one window the focus: the on-screen controls work.
	if err := d.err.Wait(wctx, "visible=true focused=true", 1); err != nil {
		t.Errorf("the page under cage never reported itself visible and focused: %v\n%s", err, d.err.String())
	}

	token := kiosktest.PageToken(t, pageURL)
	procs := descendants(cmd.Process.Pid)
	var browser []int
	for _, pid := range procs {
		argv, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		environ, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if strings.Contains(string(argv), token) || strings.Contains(string(environ), token) {
			t.Errorf("the page's token is in the command line or environment of process %d (%q)", pid, argv)
		}
		if strings.Contains(string(argv), "chromium") && strings.Contains(string(argv), pageURL) {
			browser = append(browser, pid)
		}
	}
	if len(browser) == 0 {
		t.Fatalf("no Chromium process with the page among cage's %d descendants", len(procs))
	}
	t.Logf("checked %d processes under cage for the token (%d of them Chromium's with the page)", len(procs), len(browser))
	// Nor in a file the screen wrote: Chromium's profile, the session's
	// runtime directory.
	if n := filesWith(t, token, home, run); n > 0 {
		t.Errorf("%d files under the screen's home or runtime directory hold the page's token", n)
	}

	// The browser dies: cage ends too, so the unit restarts as a whole.
	top := -1
	for _, pid := range browser {
		if ppid(pid) == cmd.Process.Pid {
			top = pid
		}
	}
	if top < 0 {
		t.Fatalf("no Chromium process is cage's child among %v", browser)
	}
	syscall.Kill(top, syscall.SIGKILL)
	killed := time.Now()
	select {
	case <-exited:
		t.Logf("cage exited %s after its browser was killed", time.Since(killed).Round(time.Millisecond))
	case <-time.After(30 * time.Second):
		t.Fatalf("cage still runs 30 s after its browser was killed; systemd would not restart the screen:\n%s", tail(screen.String(), 4000))
	}
	// What systemd then does with the unit's cgroup: the browser's orphaned
	// helpers (its network process holds the page's stream) go too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	gctx, gcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer gcancel()
	if err := d.err.Wait(gctx, "kiosk: page disconnected", 1); err != nil {
		t.Errorf("acbridge did not see the page go: %v", err)
	}
	t.Logf("acbridge saw the page go %s after the browser was killed", time.Since(killed).Round(time.Millisecond))
}

// browserUser is the kiosk.browser_user line for the account the test's
// browser runs as: the screen's (see screenUser) when screen is set, else
// the test's own.
func browserUser(t *testing.T, screen bool) string {
	t.Helper()
	if screen && os.Geteuid() == 0 {
		u, err := user.LookupId(strconv.Itoa(nobodyID))
		if err != nil {
			t.Skipf("no account with uid %d for the screen: %v", nobodyID, err)
		}
		return fmt.Sprintf("browser_user = %q", u.Username)
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("browser_user = %q", u.Username)
}

// screenUser makes the session's directories (HOME, XDG_RUNTIME_DIR 0700)
// for the user the screen runs as: nobody when the test runs as root, else
// the test's own user (nil).
func screenUser(t *testing.T, base string, dirs ...string) *syscall.Credential {
	t.Helper()
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		cred = &syscall.Credential{Uid: nobodyID, Gid: nobodyID, NoSetGroups: true}
		// nobody must reach the directories below base.
		if err := os.Chmod(base, 0o711); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range dirs {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if cred != nil {
			if err := os.Chown(d, nobodyID, nobodyID); err != nil {
				t.Fatal(err)
			}
		}
	}
	return cred
}

// filesWith counts the regular files under dirs that contain s.
func filesWith(t *testing.T, s string, dirs ...string) int {
	t.Helper()
	n, files := 0, 0
	for _, d := range dirs {
		filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			files++
			if strings.Contains(string(b), s) {
				t.Logf("the token is in %s", path)
				n++
			}
			return nil
		})
	}
	t.Logf("read %d files the screen wrote", files)
	return n
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		children[ppid(p)] = append(children[ppid(p)], p)
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// ppid is a process's parent, or -1 when it is gone.
func ppid(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return -1
	}
	// The command name may hold spaces and parentheses: fields follow the
	// last ')'.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 2 {
		return -1
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
