package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// keys init on a real tmpfs (private mount namespace) creates the
// keystore the operator asked for, and warns that it is lost at reboot.
func TestKeysInitWarnsOnTmpfs(t *testing.T) {
	tmp, inside := needs.Tmpfs(t, "warning: keystore:")
	if !inside {
		return
	}
	code, stdout, stderr := run(t, "keys", "init", "--keystore", filepath.Join(tmp, "keystore.json"))
	t.Logf("stderr: %s", stderr)
	if code != 0 || !strings.Contains(stdout, "fingerprint ks1-") || !strings.Contains(stderr, "keystore.path") {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// doctor fails env.keystore for a keystore that already exists on a real
// tmpfs (it is lost at reboot and every alias changes), naming the fix,
// and only notes it when keystore.allow_volatile says the operator knows.
func TestDoctorKeystoreOnTmpfs(t *testing.T) {
	dir, out, inside := needs.MountNamespace(t)
	if !inside {
		if !strings.Contains(out, "refused: env.keystore:") || !strings.Contains(out, "allowed: env.keystore") {
			t.Errorf("doctor did not judge the tmpfs keystore:\n%s", out)
		}
		return
	}
	tmp := filepath.Join(dir, "state")
	needs.MountTmpfs(t, tmp)
	ks := filepath.Join(tmp, "keystore.json")
	if code, _, stderr := run(t, "keys", "init", "--keystore", ks); code != 0 {
		t.Fatalf("keys init: %s", stderr)
	}
	for _, allow := range []bool{false, true} {
		conf := filepath.Join(dir, fmt.Sprintf("acbridge-%v.toml", allow))
		text := fmt.Sprintf("[agent]\nurl = \"https://agent.example\"\n[keystore]\npath = %q\nallow_volatile = %v\n", ks, allow)
		if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		_, stdout, _ := run(t, "doctor", "--config", conf)
		// A failed step is listed under "Failed:" as "env.keystore: <why>".
		failed := lineWith(stdout, "  env.keystore: ")
		switch {
		case !allow && strings.Contains(failed, "does not survive a reboot") && strings.Contains(failed, "keystore.path"):
			t.Logf("refused: %s", strings.TrimSpace(failed))
		case allow && failed == "" && strings.Contains(stdout, "lost at reboot"):
			t.Logf("allowed: env.keystore passes with a note")
		default:
			t.Errorf("allow_volatile=%v: doctor said:\n%s", allow, stdout)
		}
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
