package procrun

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func TestRunExitAndStderr(t *testing.T) {
	var out strings.Builder
	res, err := Run(context.Background(), &Options{Path: "/bin/sh", Args: []string{"-c", `echo picture; echo first >&2; printf 'last \001 line\n\n' >&2; exit 3`}, Stdout: &out, Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 || res.TimedOut || res.Stopped || res.StderrLine != "last ? line" || strings.Join(res.StderrLines, "|") != "first|last ? line" || out.String() != "picture\n" {
		t.Fatalf("%+v, stdout %q", res, out.String())
	}
}

// The timer kills the whole group: a grandchild holding the output pipe
// does not keep Run waiting.
func TestRunTimeoutKillsGroup(t *testing.T) {
	start := time.Now()
	res, err := Run(context.Background(), &Options{Path: "/bin/sh", Args: []string{"-c", "sleep 600 & sleep 600"}, Stdout: &strings.Builder{}, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !res.TimedOut || res.ExitCode != -1 {
		t.Fatalf("%+v", res)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("Run took %v", d)
	}
}

func TestRunStop(t *testing.T) {
	stop := make(chan struct{})
	close(stop)
	res, err := Run(context.Background(), &Options{Path: "/bin/sh", Args: []string{"-c", "sleep 600"}, Stop: stop})
	if err != nil || !res.Stopped || res.TimedOut {
		t.Fatalf("%+v %v", res, err)
	}
	if _, err := Run(context.Background(), &Options{Path: "/nonexistent/tool"}); err == nil {
		t.Fatal("a missing program started")
	}
}

func TestSanitize(t *testing.T) {
	if got := Sanitize("  a\x1b[0m\xffb\t "); got != "a?[0m?b" {
		t.Errorf("Sanitize = %q", got)
	}
	if got := Sanitize(strings.Repeat("é", 300)); len(got) > MaxLine || !strings.HasPrefix(got, "éé") || strings.ContainsRune(got, '\uFFFD') {
		t.Errorf("Sanitize long = %d bytes %q", len(got), got[len(got)-4:])
	}
}

// gone reports whether pid has ended (a zombie has: it holds nothing).
func gone(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return true
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	return strings.HasPrefix(s[strings.LastIndexByte(s, ')')+1:], " Z")
}

// A program that exits at once but leaves children behind, in the three
// shapes a shell makes them: in the group and holding the output, in a
// subshell that exits (an orphan), and in a session of its own; and one
// stopped while it still runs. When Run returns, every child is gone.
func TestRunLeavesNoChildren(t *testing.T) {
	for name, script := range map[string]string{
		"background":        `sleep 600 & echo $! >&2; exit 0`,
		"subshell":          `(sleep 600 & echo $! >&2); exit 0`,
		"setsid":            `setsid sleep 600 & echo $! >&2; exit 0`,
		"setsid, no output": `setsid sleep 600 >/dev/null 2>&1 </dev/null & echo $! >&2; exit 0`,
		"setsid, stopped":   `setsid sleep 600 & echo $! >&2; echo started; sleep 600`,
	} {
		t.Run(name, func(t *testing.T) {
			// The stopped one is stopped once it says it started its child.
			stop := make(chan struct{})
			out := &signalWriter{ch: stop}
			start := time.Now()
			res, err := Run(context.Background(), &Options{Path: "/bin/sh", Args: []string{"-c", script}, Stdout: out, Stop: stop, Timeout: time.Minute})
			elapsed := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(res.StderrLine)
			if err != nil {
				t.Fatalf("no child pid on stderr: %+v", res)
			}
			if !gone(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Fatalf("the child %d outlived the run (%+v, %v)", pid, res, elapsed)
			}
			t.Logf("%s: Run took %v", name, elapsed)
		})
	}
}

// signalWriter closes ch at the first write.
type signalWriter struct {
	ch   chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.ch) })
	return len(p), nil
}
