package accept_test

import (
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
)

func openMicStep(t *testing.T, so acceptsim.Options) *accept.StepResult {
	t.Helper()
	r := runSim(t, so, func(_ *acceptsim.Sim, o *accept.Options) { o.Only = []string{"audio.open-microphone"} })
	s := r.rep.Step("audio.open-microphone")
	if s == nil || s.Result != accept.Pass {
		t.Fatalf("the step: %+v", s)
	}
	return s
}

func measured(t *testing.T, s *accept.StepResult, name string) float64 {
	t.Helper()
	m, ok := s.Measurement(name)
	if !ok {
		t.Fatalf("no measurement %s in %+v", name, s.Measurements)
	}
	return m.Value
}

// The simulated room's speaker is 40 ms from the microphone: the step
// measures that delay and an ERLE that makes the kiosk fit for
// open-microphone agents.
func TestOpenMicrophoneFitsTheSimulatedRoom(t *testing.T) {
	s := openMicStep(t, acceptsim.Options{Reader: acceptsim.InProcess})
	if d := measured(t, s, "delay"); d < 35 || d > 50 {
		t.Errorf("measured delay %.1f ms, want about 40", d)
	}
	if e := measured(t, s, "erle"); e < 25 {
		t.Errorf("ERLE %.1f dB, want at least 25", e)
	}
	if measured(t, s, "openMicrophone") != 1 || !strings.Contains(strings.Join(s.Notes, " "), "fit to use") {
		t.Errorf("not found fit: %v", s.Notes)
	}
}

// An echo later than the canceller looks is not cancelled: the step
// says to stay on push-to-talk, with the fix.
func TestOpenMicrophoneUnfitStaysPushToTalk(t *testing.T) {
	s := openMicStep(t, acceptsim.Options{Reader: acceptsim.InProcess, EchoDelay: 600 * time.Millisecond})
	notes := strings.Join(s.Notes, " ")
	if measured(t, s, "openMicrophone") != 0 || !strings.Contains(notes, "push-to-talk") || !strings.Contains(notes, "lower audio.speaker_volume") {
		t.Errorf("an uncancellable echo passed as fit: %v %+v", s.Notes, s.Measurements)
	}
}
