package daemon

import (
	"strings"

	"github.com/agentcall/acbridge/station"
)

// missingStatus is the status line's note of configured devices that were
// not there at start (systemctl status shows it beside the connection).
func missingStatus(ms []station.Missing) string {
	if len(ms) == 0 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = m.Key + " " + m.Path
	}
	return "; missing: " + strings.Join(parts, ", ")
}
