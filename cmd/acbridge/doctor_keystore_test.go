package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// A keystore another user planted fails doctor even when doctor runs as
// root, who could read it.
func TestDoctorRefusesAKeystoreAnotherUserControls(t *testing.T) {
	vpcdtest.Require(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the keystore to another user")
	}
	sim, o := doctorSim(t)
	if err := os.Chown(sim.KeystorePath(), 65534, 65534); err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "doctor", "--config", o.ConfigPath)
	if code != 1 || !strings.Contains(out, "env.keystore: ") || !strings.Contains(out, "owned by uid 65534") || !strings.Contains(out, "chown acbridge:acbridge") {
		t.Errorf("file of another user: exit %d, output:\n%s", code, out)
	}
	if err := os.Chown(sim.KeystorePath(), 0, 0); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(sim.KeystorePath())
	if err := os.Chmod(dir, 0o1777); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	code, out, _ = run(t, "doctor", "--config", o.ConfigPath)
	if code != 1 || !strings.Contains(out, "env.keystore: ") || !strings.Contains(out, "other users can replace the keystore") {
		t.Errorf("world-writable directory: exit %d, output:\n%s", code, out)
	}
}

// doctorSim is the simulated kiosk doctor checks, closed at cleanup.
func doctorSim(t *testing.T) (*acceptsim.Sim, accept.Options) {
	t.Helper()
	sim, err := acceptsim.New(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	var o accept.Options
	sim.Apply(&o)
	return sim, o
}
