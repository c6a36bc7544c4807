package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/internal/cli"
)

// TestBuildsWithoutCgo keeps the protocol side free of cgo: agent authors
// build the checker with CGO_ENABLED=0, so an import of package audio (or
// anything else linking C) from protocol, client or conformance fails here.
func TestBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds packages without cgo (-short)")
	}
	gobin := filepath.Join(runtime.GOROOT(), "bin", "go")
	out := filepath.Join(t.TempDir(), "acbridge-check")
	cmd := exec.Command(gobin, "build", "../../protocol", "../../client", "../../conformance")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./protocol ./client ./conformance: %v\n%s", err, b)
	}
	cmd = exec.Command(gobin, "build", "-o", out, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./cmd/acbridge-check: %v\n%s", err, b)
	}
	var stdout bytes.Buffer
	cmd = exec.Command(out, "conformance")
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil || !strings.Contains(stdout.String(), "conformance: 17 passed, 0 failed") {
		t.Fatalf("the cgo-free checker: %v\n%s", err, stdout.String())
	}
}

func TestReplayAgainstReferenceAgent(t *testing.T) {
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()
	code, out, errs := check(t, "replay", "--agent", srv.URL, "--allow-insecure-local")
	if code != 0 || !strings.Contains(out, "conforms over websocket: 69 of 69 steps matched") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
}

func TestUsage(t *testing.T) {
	if code, out, _ := check(t, "--help"); code != 0 || !strings.Contains(out, "replay") || !strings.Contains(out, "conformance") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	// An unknown word is never echoed: it may be a token.
	if code, _, errs := check(t, "canary-7f3a"); code != 2 || strings.Contains(errs, "canary-7f3a") || !strings.Contains(errs, "unknown command") {
		t.Fatalf("unknown: exit %d\n%s", code, errs)
	}
	if code, _, _ := check(t); code != 2 {
		t.Fatalf("no command: exit %d", code)
	}
	if code, _, errs := check(t, "replay"); code != 2 || !strings.Contains(errs, "--agent URL is required") {
		t.Fatalf("replay without --agent: exit %d\n%s", code, errs)
	}
}

func check(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(context.Background(), &cli.Env{Stdout: &out, Stderr: &errs}, args)
	return code, out.String(), errs.String()
}
