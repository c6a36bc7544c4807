package config

import (
	"net/url"
	"strings"
)

// ICEServer is one STUN or TURN server of agent.ice_servers, for WebRTC
// (the agent card carries none: the contract's params.agui.webrtc names
// only the profile). TURN credentials come from CredentialFile under the
// token file's rules (mode 0600, one line of visible ASCII), never from
// this file, so that they are not in a world-readable configuration and
// never in a log.
type ICEServer struct {
	URLs           []string `toml:"urls"`
	Username       string   `toml:"username"`
	CredentialFile string   `toml:"credential_file"`
}

// ICE transport policies (agent.ice_transport).
const (
	ICETransportAll   = "all"
	ICETransportRelay = "relay"
)

// maxICEServers bounds agent.ice_servers: pion gathers from each.
const maxICEServers = 8

// checkICE adds the problems of agent.ice_servers and agent.ice_transport.
func (a *Agent) checkICE(add func(string, ...any)) {
	if len(a.ICEServers) > maxICEServers {
		add("agent.ice_servers lists %d servers; at most %d", len(a.ICEServers), maxICEServers)
	}
	turn := false
	for i, s := range a.ICEServers {
		if len(s.URLs) == 0 {
			add("agent.ice_servers[%d] has no urls (like [\"turns:turn.example.net:443?transport=tcp\"])", i)
		}
		needsCred := false
		for _, raw := range s.URLs {
			u, err := url.Parse(raw)
			switch {
			case err != nil || u.Opaque == "":
				add("agent.ice_servers[%d]: %q is not a STUN or TURN URL (stun:, stuns:, turn: or turns: HOST[:PORT])", i, raw)
			case u.Scheme == "turn" || u.Scheme == "turns":
				needsCred, turn = true, true
			case u.Scheme != "stun" && u.Scheme != "stuns":
				add("agent.ice_servers[%d]: %q is not a STUN or TURN URL (stun:, stuns:, turn: or turns: HOST[:PORT])", i, raw)
			}
		}
		if needsCred && (s.Username == "" || s.CredentialFile == "") {
			add("agent.ice_servers[%d]: a TURN server needs username and credential_file (a file of mode 0600 holding the password)", i)
		}
		if strings.ContainsAny(s.Username, "\x00\r\n") {
			add("agent.ice_servers[%d].username must be one line", i)
		}
	}
	switch a.ICETransport {
	case "", ICETransportAll:
	case ICETransportRelay:
		if !turn {
			add("agent.ice_transport = \"relay\" needs a TURN server in agent.ice_servers")
		}
	default:
		add("agent.ice_transport must be \"all\" or \"relay\"")
	}
}
