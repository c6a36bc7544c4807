// Package needs is the one rule for tests that need something from the
// system (pcscd, chromium, xmllint, sox, a pseudo-terminal): on a
// developer's machine they skip when it is missing; under `make test`, which
// installs everything and sets ACBRIDGE_REQUIRE_SERVICES, they fail instead,
// so a green CI run never hides a skipped test.
package needs

import (
	"os"
	"os/exec"
	"testing"
)

// Required reports whether missing services fail tests (make test).
func Required() bool { return os.Getenv("ACBRIDGE_REQUIRE_SERVICES") != "" }

// Unavailable ends the test: Fatal when services are required, Skip
// otherwise. msg says what is missing and how to get it.
func Unavailable(t testing.TB, msg string) {
	t.Helper()
	if Required() {
		t.Fatal(msg)
	}
	t.Skip(msg + " (set ACBRIDGE_REQUIRE_SERVICES=1 to fail instead)")
}

// Tool returns the path of the first of names found in PATH, or ends the
// test naming the Debian package that provides it.
func Tool(t testing.TB, pkg string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if path, err := exec.LookPath(n); err == nil {
			return path
		}
	}
	Unavailable(t, names[0]+" not found: apt-get install "+pkg+" (scripts/install-deps.sh test)")
	return ""
}
