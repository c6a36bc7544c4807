package accept_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

func TestOnlyUnknownStepIsAnError(t *testing.T) {
	_, err := accept.Run(context.Background(), &accept.Options{Only: []string{"nfc", "teleporter"}})
	if !errors.Is(err, accept.ErrUnknownStep) || !strings.Contains(err.Error(), "teleporter") {
		t.Fatalf("Run = %v", err)
	}
}

// The environment steps alone need no technician: that is acbridge doctor.
func TestEnvironmentOnlyNeedsNobody(t *testing.T) {
	requireVPCD(t)
	sim, err := acceptsim.New(context.Background(), &acceptsim.Options{Tags: canaryTags})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	var o accept.Options
	sim.Apply(&o)
	o.Technician = nil
	o.Only = []string{"env"}
	rep, err := accept.Run(context.Background(), &o)
	if err != nil {
		t.Fatal(err)
	}
	// Every environment step, however many the checklist has.
	env := 0
	for _, id := range accept.StepIDs(o.Config) {
		if strings.HasPrefix(id, "env.") {
			env++
		}
	}
	if env < 12 || len(rep.Steps) != env || !rep.Accepted {
		t.Fatalf("%d steps, accepted %v", len(rep.Steps), rep.Accepted)
	}
	for _, s := range rep.Steps {
		if s.Group != accept.GroupEnvironment {
			t.Errorf("%s ran", s.ID)
		}
	}
}

// An interactive step without a technician, and a step selected without
// the step that checks the device it needs, must not pass silently.
func TestSelectionPullsInWhatItCompares(t *testing.T) {
	cfg := config.Defaults()
	cfg.Agent.URL = "https://agent.example"
	rep, err := accept.Run(context.Background(), &accept.Options{Config: cfg, Only: []string{"nfc.tap2"}, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range rep.Steps {
		ids = append(ids, s.ID)
		if s.Result != accept.Skip || !strings.Contains(s.Reason, "technician") {
			t.Errorf("%s: %s %q, want a skip for want of a technician", s.ID, s.Result, s.Reason)
		}
	}
	if strings.Join(ids, ",") != "nfc.tap1,nfc.tap2" {
		t.Errorf("ran %v, want nfc.tap1 (whose alias tag 2 is compared with) and nfc.tap2", ids)
	}
}

// Ctrl-C fails the step in progress and skips the rest: an interrupted
// acceptance is never accepted.
func TestInterruptedRunIsNotAccepted(t *testing.T) {
	cfg := config.Defaults()
	for _, c := range []string{button.Scan, button.Photo} {
		cfg.Buttons = append(cfg.Buttons, config.Button{Control: c, Source: "gpio", Chip: "gpiochip0"})
	}
	ctx, cancel := context.WithCancel(context.Background())
	src := buttontest.NewSource(&button.Options{Debounce: -1})
	defer src.Close()
	rep, err := accept.Run(ctx, &accept.Options{Config: cfg, Only: []string{"buttons"}, Technician: &stallTech{cancel: cancel},
		Devices: &station.Overrides{Buttons: func() (button.Source, error) { return src, nil }}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Accepted || !rep.Interrupted || rep.Failed != 1 || rep.Skipped != 1 {
		t.Fatalf("accepted %v interrupted %v failed %d skipped %d", rep.Accepted, rep.Interrupted, rep.Failed, rep.Skipped)
	}
	if s := rep.Step("buttons.scan"); s.Result != accept.Fail || !strings.Contains(s.Reason, "interrupted") {
		t.Errorf("the step in progress: %+v", s)
	}
}

// stallTech never presses anything; the technician hits Ctrl-C instead.
type stallTech struct{ cancel context.CancelFunc }

func (s *stallTech) Do(context.Context, accept.Prompt) <-chan struct{} {
	s.cancel()
	return nil
}
func (s *stallTech) Ask(context.Context, accept.Prompt) (bool, error) { return false, nil }

// A configuration that failed to load leaves the other steps on the
// defaults: a selection without env.config must still report why, never
// pass on devices nobody configured.
func TestBrokenConfigIsReportedWhateverIsSelected(t *testing.T) {
	rep, err := accept.Run(context.Background(), &accept.Options{Config: config.Defaults(),
		ConfigErr: errors.New("config: kiosk.toml: line 3: unknown key"), Only: []string{"env.power"}, Out: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Accepted {
		t.Error("accepted with a configuration that did not load")
	}
	found := false
	for _, s := range rep.Steps {
		if s.ID == "env.config" {
			found = s.Result == accept.Fail && strings.Contains(s.Reason, "unknown key")
		}
	}
	if !found {
		t.Errorf("env.config did not fail with the load error: %+v", rep.Steps)
	}
}
