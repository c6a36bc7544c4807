package daemon

import (
	"crypto/tls"
	"fmt"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/config"
)

// AgentPolicy is the network policy a's keys set for every connection to
// the agent (and to a report collector): the local-development policy,
// the private networks allowed for an on-premises agent, and a private CA
// trusted besides the system's roots. A CA file that cannot be used is an
// error naming agent.ca_file.
func AgentPolicy(a *config.Agent) (*client.Policy, error) {
	p := &client.Policy{AllowInsecureLocal: a.AllowInsecureLocal, AllowNetworks: a.Networks()}
	if a.CAFile != "" {
		pool, err := client.LoadCAFile(a.CAFile)
		if err != nil {
			return nil, fmt.Errorf("agent.ca_file: %w", err)
		}
		p.TLSConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return p, nil
}
