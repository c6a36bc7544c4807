package audio_test

import (
	"testing"

	"github.com/agentcall/acbridge/internal/testutil/needs"

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
	needs.Tool(t, pkg, name)
}
