package daemon

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/config"
)

// TURN credentials follow the token file's rules, and an error never
// carries the secret.
func TestICEServerCredentials(t *testing.T) {
	dir := t.TempDir()
	good, loose := filepath.Join(dir, "turn.secret"), filepath.Join(dir, "loose.secret")
	os.WriteFile(good, []byte("s3cret-pass\n"), 0o600)
	os.WriteFile(loose, []byte("s3cret-pass\n"), 0o644)
	a := &config.Agent{ICEServers: []config.ICEServer{{URLs: []string{"turns:t.example:443"}, Username: "kiosk", CredentialFile: good}}}
	got, err := iceServers(a)
	if err != nil || len(got) != 1 || got[0].Credential != "s3cret-pass" || got[0].Username != "kiosk" {
		t.Fatalf("%+v, %v", got, err)
	}
	a.ICEServers[0].CredentialFile = loose
	_, err = iceServers(a)
	if err == nil || !strings.Contains(err.Error(), "agent.ice_servers[0].credential_file") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("group-readable credential file: %v", err)
	}
}
