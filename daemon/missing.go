package daemon

import (
	"strings"
	"time"

	"github.com/agentcall/acbridge/station"
)

// missingEvery is how often the daemon looks whether a configured device
// that was missing at start has been plugged in: a few stat calls, and a
// technician who plugs a camera in sees the status line clear within it.
const missingEvery = 2 * time.Second

// missingStatus is the status line's note of configured devices that are
// not there (systemctl status shows it beside the connection).
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
