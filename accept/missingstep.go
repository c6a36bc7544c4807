package accept

import (
	"context"
	"strings"

	"github.com/agentcall/acbridge/station"
)

// envDevices names each configured device path that is not on this
// machine, with its key and what is there instead.
func (r *runner) envDevices(_ context.Context, t *T) error {
	ms := station.MissingDevices(r.cfg)
	if len(ms) == 0 {
		t.note("every configured device path exists")
		return nil
	}
	lines := make([]string, len(ms))
	for i, m := range ms {
		lines[i] = m.String()
	}
	return failf("plug the device in, or set the key to one that is here (acbridge devices lists them)", "%s", strings.Join(lines, "; "))
}
