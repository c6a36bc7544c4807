package config

import (
	"strings"
	"testing"
)

func TestICEServers(t *testing.T) {
	base := "[agent]\nurl = \"https://agent.example\"\n"
	c, err := Parse([]byte(base + `ice_transport = "relay"
[[agent.ice_servers]]
urls = ["turns:turn.example.net:443?transport=tcp", "turn:turn.example.net:3478"]
username = "kiosk"
credential_file = "/etc/acbridge/turn.secret"
[[agent.ice_servers]]
urls = ["stun:stun.example.net:3478"]
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Agent.ICEServers) != 2 || c.Agent.ICEServers[0].CredentialFile != "/etc/acbridge/turn.secret" || c.Agent.ICETransport != ICETransportRelay {
		t.Fatalf("%+v", c.Agent)
	}
	for _, tc := range []struct{ toml, want string }{
		{"ice_transport = \"relay\"\n", "needs a TURN server"},
		{"ice_transport = \"direct\"\n", "\"all\" or \"relay\""},
		{"ice_servers = [{urls = [\"turns:t.example:443\"]}]\n", "needs username and credential_file"},
		{"ice_servers = [{urls = [\"https://t.example\"]}]\n", "is not a STUN or TURN URL"},
		{"ice_servers = [{urls = []}]\n", "has no urls"},
	} {
		_, err := Parse([]byte(base + tc.toml))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.toml, err, tc.want)
		}
	}
}
