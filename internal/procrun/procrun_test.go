package procrun

import (
	"context"
	"strings"
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
