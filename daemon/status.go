package daemon

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/station"
)

// statusLine is the daemon's sd_notify STATUS (systemctl status): the
// bridge's connection, the devices missing at start and the problems the
// health Tracker holds now, so that the line and the kiosk page tell the
// same problems from one place.
type statusLine struct {
	health *health.Tracker
	notify func(status string)

	mu      sync.Mutex
	conn    string            // the connection's words, from the bridge's last State
	missing []station.Missing // configured devices still absent (recheck)
}

func newStatusLine(missing []station.Missing, t *health.Tracker, conn string, notify func(string)) *statusLine {
	s := &statusLine{missing: missing, health: t, notify: notify, conn: conn}
	// A problem that comes or goes updates the line at once, not at the
	// next connection change.
	t.Watch(func(*health.Warnable, bool) { s.send() })
	return s
}

// state takes the bridge's connection state (bridge.Options.OnState).
func (s *statusLine) state(st bridge.State) {
	conn := "not connected: " + fmt.Sprint(st.Err)
	if st.Connected {
		conn = fmt.Sprintf("connected to %s (%v)", st.Agent, st.Modalities)
	}
	s.mu.Lock()
	s.conn = conn
	s.mu.Unlock()
	s.send()
}

func (s *statusLine) send() { s.notify(s.String()) }

// String is the line as it is now.
func (s *statusLine) String() string {
	s.mu.Lock()
	line := s.conn + missingStatus(s.missing)
	s.mu.Unlock()
	var codes []string
	for _, w := range s.health.Current() {
		codes = append(codes, w.Code+" ("+w.Text+")")
	}
	if len(codes) > 0 {
		line += "; problems: " + strings.Join(codes, ", ")
	}
	return line
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
	var still []station.Missing
	for _, m := range s.missing {
		if _, err := os.Stat(m.Path); err == nil {
			log.Info("configured device appeared", "key", m.Key, "path", m.Path)
			continue
		}
		still = append(still, m)
	}
	changed := len(still) != len(s.missing)
	s.missing = still
	s.mu.Unlock()
	if changed {
		s.send()
	}
	return len(still) > 0
}
