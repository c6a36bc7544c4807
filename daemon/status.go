package daemon

import (
	"fmt"
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
	missing []station.Missing
	health  *health.Tracker
	notify  func(status string)

	mu   sync.Mutex
	conn string // the connection's words, from the bridge's last State
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
	line := s.conn
	s.mu.Unlock()
	line += missingStatus(s.missing)
	var codes []string
	for _, w := range s.health.Current() {
		codes = append(codes, w.Code+" ("+w.Text+")")
	}
	if len(codes) > 0 {
		line += "; problems: " + strings.Join(codes, ", ")
	}
	return line
}
