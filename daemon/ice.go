package daemon

import (
	"fmt"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
)

// iceServers reads agent.ice_servers' credential files (the token file's
// rules: mode 0600, one line; errors never carry the secret).
func iceServers(a *config.Agent) ([]client.ICEServer, error) {
	var out []client.ICEServer
	for i, s := range a.ICEServers {
		is := client.ICEServer{URLs: s.URLs, Username: s.Username}
		if s.CredentialFile != "" {
			cred, err := keystore.LoadToken(s.CredentialFile)
			if err != nil {
				return nil, fmt.Errorf("agent.ice_servers[%d].credential_file: %w", i, err)
			}
			is.Credential = cred
		}
		out = append(out, is)
	}
	return out, nil
}
