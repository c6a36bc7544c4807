package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/internal/needs"
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
