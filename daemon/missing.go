package daemon

import (
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/station"
	sd "github.com/coreos/go-systemd/v22/daemon"
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

// statusLine is the systemd STATUS= line: the connection and the devices
// still missing, sent again whenever either changes.
type statusLine struct {
	mu      sync.Mutex
	conn    string
	missing []station.Missing
}

func newStatusLine(conn string, missing []station.Missing) *statusLine {
	return &statusLine{conn: conn, missing: missing}
}

// connection sets the connection part and sends the line.
func (s *statusLine) connection(conn string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.conn = conn
	s.send("")
}

// ready sends READY with the line, in one message.
func (s *statusLine) ready() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.send(sd.SdNotifyReady + "\n")
}

func (s *statusLine) send(prefix string) {
	sd.SdNotify(false, prefix+"STATUS="+s.conn+missingStatus(s.missing))
}

// stillMissing reports whether a device missing at start is still absent.
func (s *statusLine) stillMissing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.missing) > 0
}

// recheck drops the devices that have appeared from the line, logging each
// once, and sends the line when it changed. It reports whether any device
// is still missing.
func (s *statusLine) recheck(log *slog.Logger) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	var still []station.Missing
	for _, m := range s.missing {
		if _, err := os.Stat(m.Path); err == nil {
			log.Info("configured device appeared", "key", m.Key, "path", m.Path)
			continue
		}
		still = append(still, m)
	}
	if len(still) != len(s.missing) {
		s.missing = still
		s.send("")
	}
	return len(still) > 0
}
