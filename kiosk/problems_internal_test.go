package kiosk

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/camera"
)

// In speech mode a problem is said when it appears, once: a person who
// cannot see the screen learns why the camera does nothing.
func TestProblemSaidOnce(t *testing.T) {
	var s state
	before := s.view()
	s.problems = []string{camera.WarnUnplugged.Code}
	after := s.view()
	if got := spokenChange(before, after, false); !strings.Contains(got, camera.WarnUnplugged.Person) {
		t.Errorf("a new problem was not said: %q", got)
	}
	if got := spokenChange(after, s.view(), false); strings.Contains(got, camera.WarnUnplugged.Person) {
		t.Errorf("a standing problem was said again: %q", got)
	}
}
