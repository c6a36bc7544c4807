package nfctest

import (
	"path/filepath"
	"testing"

	"github.com/agentcall/acbridge/keystore"
)

// ForAgent returns a virtual reader for tests of code above the reader:
// its aliases come from a fresh keystore in t's temporary directory,
// scoped to the agent at agentURL, as the daemon scopes them.
func ForAgent(t testing.TB, agentURL string) *Reader {
	t.Helper()
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	scope, err := keystore.CanonicalScope(agentURL)
	if err != nil {
		t.Fatal(err)
	}
	return New(ks, scope)
}
