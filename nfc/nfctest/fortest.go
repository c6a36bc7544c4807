package nfctest

import (
	"path/filepath"

	"github.com/agentcall/acbridge/keystore"
)

// ForAgent returns a virtual reader whose aliases come from a fresh
// keystore created in dir, scoped to the agent at agentURL as the daemon
// scopes them: the set-up of tests of code above the reader. (No
// testing.TB here: the demo links this package.)
func ForAgent(dir, agentURL string) (*Reader, error) {
	ks, err := keystore.Create(filepath.Join(dir, "keystore.json"))
	if err != nil {
		return nil, err
	}
	scope, err := keystore.CanonicalScope(agentURL)
	if err != nil {
		return nil, err
	}
	return New(ks, scope), nil
}
