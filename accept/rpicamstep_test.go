package accept_test

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/camera/rpicam/rpicamtest"
	"github.com/agentcall/acbridge/config"
)

// env.camera (a doctor step) for a ribbon camera, with the rpicam-apps
// stand-ins: a listed camera passes, an unlisted one and a missing
// rpicam-apps fail with their fixes; `acbridge accept`'s capture step takes
// the photo through rpicam-still.
func TestEnvRPiCam(t *testing.T) {
	cfgFor := func(dev string) *config.Config {
		cfg, err := config.Parse([]byte("[agent]\nurl = \"https://agent.example\"\n[modalities]\nenabled = [\"photo\"]\n[camera]\ndevice = \"" + dev + "\"\n"))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	run := func(cfg *config.Config, only string) accept.StepResult {
		t.Helper()
		rep, err := accept.Run(context.Background(), &accept.Options{Only: []string{only}, Config: cfg, Out: io.Discard})
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Steps) != 1 {
			t.Fatalf("%d steps ran", len(rep.Steps))
		}
		return rep.Steps[0]
	}
	t.Setenv("PATH", t.TempDir())
	if s := run(cfgFor("rpicam:0"), "env.camera"); s.Result != accept.Fail || !strings.Contains(s.Fix, "rpicam-apps-lite") {
		t.Errorf("without rpicam-apps: %s (%s), fix %q", s.Result, s.Reason, s.Fix)
	}
	st := rpicamtest.Install(t, rpicamtest.ListingIMX708)
	if s := run(cfgFor("rpicam:0"), "env.camera"); s.Result != accept.Pass || !strings.Contains(strings.Join(s.Notes, " "), "rpicam:0 (imx708)") {
		t.Errorf("listed camera: %s (%s), notes %q", s.Result, s.Reason, s.Notes)
	}
	if s := run(cfgFor("rpicam:1"), "env.camera"); s.Result != accept.Fail || !strings.Contains(s.Reason, "lists rpicam:0 (imx708), not rpicam:1") || !strings.Contains(s.Fix, "ribbon cable") {
		t.Errorf("unlisted camera: %s (%s), fix %q", s.Result, s.Reason, s.Fix)
	}
	rep, err := accept.Run(context.Background(), &accept.Options{Only: []string{"camera.capture"}, Config: cfgFor("rpicam:0"), Out: io.Discard, Technician: aimer{}})
	if err != nil || len(rep.Steps) != 1 || rep.Steps[0].Result != accept.Pass || rep.Device.Camera != "rpicam:0" {
		t.Errorf("camera.capture through rpicam-still: %v %+v", err, rep)
	}
	if alive := st.WaitGone(5 * time.Second); len(alive) > 0 {
		t.Errorf("processes left behind: %v", alive)
	}
	st.SetListing(rpicamtest.ListingNone)
	if s := run(cfgFor("rpicam:0"), "env.camera"); s.Result != accept.Fail || !strings.Contains(s.Reason, "lists no camera") {
		t.Errorf("no camera: %s (%s)", s.Result, s.Reason)
	}
}

// aimer is a technician who points the camera when asked.
type aimer struct{}

func (aimer) Do(context.Context, accept.Prompt) <-chan struct{} { return nil }
func (aimer) Ask(context.Context, accept.Prompt) (bool, error)  { return true, nil }
