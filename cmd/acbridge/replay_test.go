package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/conformance"
)

func TestReplayCommand(t *testing.T) {
	a := agent.New(nil)
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()

	code, out, errs := run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--strict-text")
	if code != 0 || !strings.Contains(out, "conforms over websocket: 69 of 69 steps matched") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// Without the local policy, http is refused before any connection.
	if code, _, errs := run(t, "replay", "--agent", srv.URL); code != 1 || !strings.Contains(errs, "--allow-insecure-local") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A trace the agent does not follow diverges, and the report says where.
	f, _ := conformance.Parse(conformance.PublicFixtures)
	raw := strings.Replace(string(conformance.PublicFixtures), `"text": "This is Workshop router."`, `"text": "Something else."`, 1)
	path := filepath.Join(t.TempDir(), "trace.json")
	os.WriteFile(path, []byte(raw), 0o600)
	code, out, _ = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--strict-text", "--trace", path)
	if code != 1 || !strings.Contains(out, "diverged at step") || !strings.Contains(out, "different text") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if len(f.Walkthrough) != 69 {
		t.Fatalf("public walkthrough has %d steps", len(f.Walkthrough))
	}
	if code, _, _ := run(t, "replay", "--allow-insecure-local"); code != 2 {
		t.Fatalf("missing --agent: exit %d", code)
	}
}
