package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/conformance"
)

// run executes acbridge in-process and returns its status and output.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runMain(context.Background(), &env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, args)
	return code, out.String(), errb.String()
}

func TestHelpListsEveryCommand(t *testing.T) {
	code, out, _ := run(t, "--help")
	if code != 0 {
		t.Fatalf("--help exit %d", code)
	}
	for name := range commands {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("--help does not list %s", name)
		}
		if code, out, _ := run(t, name, "--help"); code != 0 || !strings.Contains(out, "Usage: acbridge "+name) {
			t.Errorf("%s --help: exit %d, output %q", name, code, out)
		}
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "version")
	if code != 0 || !strings.HasPrefix(out, "acbridge ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %d %q", code, out)
	}
}

// A tag UID typed in the wrong place must never be echoed back by any
// command's usage errors.
func TestUsageErrorsNeverEchoArguments(t *testing.T) {
	const canary = "04C0FFEE0BADF00D"
	if code, out, errs := run(t, canary); code != 2 || strings.Contains(out+errs, canary) {
		t.Errorf("unknown command: exit %d, echoed: %v", code, strings.Contains(out+errs, canary))
	}
	for name := range commands {
		for _, args := range [][]string{{canary}, {"--" + canary}, {"--" + canary + "=" + canary}, {"--json=" + canary}, {"--help=" + canary}} {
			code, out, errs := run(t, append([]string{name}, args...)...)
			if code != 2 && !strings.HasPrefix(args[0], "--help") {
				t.Errorf("%s %v: exit %d, want 2", name, args, code)
			}
			if strings.Contains(strings.ToUpper(out+errs), canary) {
				t.Errorf("%s %v echoed the argument:\n%s%s", name, args, out, errs)
			}
		}
	}
}

func TestConformanceCommand(t *testing.T) {
	code, out, _ := run(t, "conformance")
	if code != 0 || !strings.Contains(out, "conformance: 17 passed, 0 failed") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, "conformance", "--json")
	if code != 0 || !strings.Contains(out, `"passed": 17`) || !strings.Contains(out, `"section": "walkthrough"`) {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	if code, _, errs := run(t, "conformance", "--fixtures", "/nonexistent/fixtures.json"); code != 2 || errs == "" {
		t.Fatalf("missing file: exit %d %q", code, errs)
	}
	// A fixture file whose expectation is wrong must fail the run.
	tampered := strings.Replace(string(conformance.PublicFixtures), `"expectedErrors": [
        "image.jpeg"
      ]`, `"expectedErrors": [
        "image.base64"
      ]`, 1)
	if tampered == string(conformance.PublicFixtures) {
		t.Fatal("tampering did not change the fixtures")
	}
	path := filepath.Join(t.TempDir(), "f.json")
	if err := os.WriteFile(path, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run(t, "conformance", "--fixtures", path)
	if code != 1 || !strings.Contains(out, "FAIL observations not-a-jpeg") || !strings.Contains(out, "16 passed, 1 failed") {
		t.Fatalf("tampered fixtures: exit %d:\n%s", code, out)
	}
	if code, out, _ := run(t, "conformance", "--strict"); code != 0 || !strings.Contains(out, "conformance: 17 passed, 0 failed") {
		t.Fatalf("--strict: exit %d:\n%s", code, out)
	}
	// A walkthrough whose session id has a space (the contract bounds
	// none of its characters) passes in both modes.
	spaced := strings.Replace(string(conformance.PublicFixtures), `"sessionId": "proof-1"`, `"sessionId": "proof 1"`, 1)
	if err := os.WriteFile(path, []byte(spaced), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range [][]string{nil, {"--strict"}} {
		code, out, _ = run(t, append([]string{"conformance", "--fixtures", path}, mode...)...)
		if code != 0 || !strings.Contains(out, "17 passed, 0 failed") {
			t.Fatalf("spaced session id %v: exit %d:\n%s", mode, code, out)
		}
	}
}
