package daemon

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/camera"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/station"
)

// The status line reads the health Tracker: a problem that comes is on
// the line at once, beside the connection and the missing devices, and
// leaves it when it is over.
func TestStatusLineReadsTheTracker(t *testing.T) {
	var sent []string
	tr := &health.Tracker{}
	s := newStatusLine([]station.Missing{{Key: "camera.device", Path: "/dev/video7"}}, tr, "connecting to https://agent.example", func(l string) { sent = append(sent, l) })
	s.state(bridge.State{Err: errors.New("refused")})
	tr.Set(camera.WarnUnplugged, "no frame in 5s")
	want := "not connected: refused; missing: camera.device /dev/video7; problems: " + camera.WarnUnplugged.Code
	if len(sent) != 2 || !strings.HasPrefix(sent[1], want) {
		t.Fatalf("lines %q, want the second to start %q", sent, want)
	}
	tr.Clear(camera.WarnUnplugged)
	if last := sent[len(sent)-1]; strings.Contains(last, "problems") {
		t.Errorf("the problem stayed on the line: %q", last)
	}
}
