package accept_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/nfc/vpcd"
)

// brokenCase breaks one device of the simulated kiosk. The acceptance must
// fail exactly the steps that check it, each with a fix, and still run
// every other step.
type brokenCase struct {
	name    string
	sim     acceptsim.Options
	breakIt func(t *testing.T, s *acceptsim.Sim, o *accept.Options)
	// fails are the steps that must fail, with a fix containing fix[id].
	fails map[string]string
	// passes are steps of other devices that must still pass.
	passes []string
}

var brokenCases = []brokenCase{
	{
		name: "reader gone",
		breakIt: func(_ *testing.T, s *acceptsim.Sim, _ *accept.Options) {
			s.Config.NFC.Reader = "Virtual PCD 00 07" // no such slot: the reader is unplugged
		},
		fails:  map[string]string{"nfc.reader": "plug the reader in"},
		passes: []string{"env.pcscd", "buttons.scan", "camera.capture", "audio.microphone", "agent.observation"},
	},
	{
		name: "camera gone",
		breakIt: func(_ *testing.T, s *acceptsim.Sim, _ *accept.Options) {
			s.Config.Camera.Device = "/dev/video99"
		},
		fails:  map[string]string{"env.camera": "ls /dev/video*", "camera.capture": "ls /dev/video*", "env.devices": "acbridge devices"},
		passes: []string{"nfc.tap2", "buttons.photo", "audio.speaker", "agent.observation"},
	},
	{
		name:    "agent down",
		breakIt: func(_ *testing.T, s *acceptsim.Sim, _ *accept.Options) { s.StopAgent() },
		fails:   map[string]string{"agent.card": "curl -sS http://127.0.0.1:"},
		passes:  []string{"nfc.tap2", "buttons.cancel", "camera.capture", "audio.microphone"},
	},
	{
		name: "buttons bounce",
		breakIt: func(_ *testing.T, s *acceptsim.Sim, _ *accept.Options) {
			for i := range s.Config.Buttons {
				s.Config.Buttons[i].Debounce.Duration = -1 // no debouncing: every chatter is a press
			}
		},
		fails:  map[string]string{"buttons.scan": "raise debounce", "buttons.photo": "raise debounce", "buttons.cancel": "raise debounce"},
		passes: []string{"nfc.no-tap", "camera.capture", "audio.speaker", "agent.text"},
	},
	{
		name: "keystore 0644",
		breakIt: func(t *testing.T, s *acceptsim.Sim, _ *accept.Options) {
			if err := os.Chmod(s.KeystorePath(), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		fails:  map[string]string{"env.keystore": "chmod 600 "},
		passes: []string{"nfc.tap1-again", "nfc.tap2", "camera.capture", "agent.observation"},
	},
}

func TestBrokenDevices(t *testing.T) {
	for _, c := range brokenCases {
		t.Run(c.name, func(t *testing.T) {
			requireVPCD(t)
			r := runSim(t, c.sim, func(s *acceptsim.Sim, o *accept.Options) { c.breakIt(t, s, o) })
			checkBroken(t, r, c)
		})
	}
}

func checkBroken(t *testing.T, r *simRun, c brokenCase) {
	t.Helper()
	if r.rep.Accepted {
		t.Error("accepted with a broken device")
	}
	if want := len(accept.StepIDs(r.opts.Config)); len(r.rep.Steps) != want {
		t.Errorf("%d steps ran, the checklist has %d", len(r.rep.Steps), want)
	}
	for _, s := range r.rep.Steps {
		fix, want := c.fails[s.ID]
		switch {
		case want && s.Result != accept.Fail:
			t.Errorf("%s: %s, want fail", s.ID, s.Result)
		case want && (s.Reason == "" || !strings.Contains(s.Fix, fix)):
			t.Errorf("%s failed with reason %q and fix %q; want a fix with %q", s.ID, s.Reason, s.Fix, fix)
		case !want && s.Result == accept.Fail:
			t.Errorf("%s failed too: %s", s.ID, s.Reason)
		case s.Result == accept.Skip && s.Reason == "":
			t.Errorf("%s skipped without saying why", s.ID)
		}
		if slices.Contains(c.passes, s.ID) && s.Result != accept.Pass {
			t.Errorf("%s: %s (%s), want pass: the other devices must still be checked", s.ID, s.Result, s.Reason)
		}
	}
	for id, fix := range c.fails {
		if !strings.Contains(string(r.out), "fix: ") || !strings.Contains(string(r.out), id+": ") || !strings.Contains(string(r.out), fix) {
			t.Errorf("the summary does not list %s with its fix", id)
		}
	}
	checkReports(t, r, "")
}

// pcscd down runs in a child process whose libpcsclite talks to a socket
// nobody serves (it reads PCSCLITE_CSOCK_NAME once per process), so the
// shared pcscd keeps running for the other packages' tests. The virtual
// card points at a closed port for the same reason.
func TestPCSCDDown(t *testing.T) {
	if os.Getenv("ACCEPT_TEST_CHILD") == "pcscd-down" {
		c := brokenCase{
			name:    "pcscd down",
			sim:     acceptsim.Options{Reader: acceptsim.VPCD, VPCDAddr: "127.0.0.1:9", VPCDReader: vpcd.DefaultReader},
			breakIt: func(*testing.T, *acceptsim.Sim, *accept.Options) {},
			fails:   map[string]string{"env.pcscd": "pcscd.socket", "nfc.reader": "pcscd.socket"},
			passes:  []string{"buttons.scan", "camera.capture", "audio.microphone", "agent.observation"},
		}
		r := runSim(t, c.sim, nil)
		checkBroken(t, r, c)
		for _, id := range []string{"env.polkit", "env.pn533", "nfc.tap1", "nfc.random-uid"} {
			if s := r.rep.Step(id); s == nil || s.Result != accept.Skip {
				t.Errorf("%s: want a skip pointing at the failed step", id)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPCSCDDown$", "-test.v")
	cmd.Env = append(os.Environ(), "ACCEPT_TEST_CHILD=pcscd-down", "PCSCLITE_CSOCK_NAME="+filepath.Join(t.TempDir(), "none.comm"))
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestPCSCDDown") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
