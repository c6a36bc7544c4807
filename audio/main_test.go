package audio_test

import (
	"os"
	"os/exec"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// requireTool skips a test that needs a Debian tool only when services are
// not required; `make test` sets ACBRIDGE_REQUIRE_SERVICES, so a missing
// tool fails there instead of skipping.
func requireTool(t *testing.T, name, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(name); err == nil {
		return
	}
	msg := name + " not found: apt-get install " + pkg + " (scripts/install-deps.sh test)"
	if os.Getenv("ACBRIDGE_REQUIRE_SERVICES") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
