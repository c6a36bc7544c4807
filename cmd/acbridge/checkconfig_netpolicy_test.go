package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/client/clienttest"
)

// --check-config runs the network policy on address literals in agent.url
// and checks agent.allow_networks and agent.ca_file, each refusal naming
// the key; what the policy allows still passes.
func TestCheckConfigNetworkPolicy(t *testing.T) {
	dir := t.TempDir()
	caFile, _, key := clienttest.NewCA(t).WriteFiles(t, dir, "agent.intranet")
	keyOnly := filepath.Join(dir, "key-only.pem")
	b, _ := os.ReadFile(key)
	os.WriteFile(keyOnly, b, 0o600)
	check := func(agent string) (int, string, string) {
		path := filepath.Join(dir, "acbridge.toml")
		if err := os.WriteFile(path, []byte("[agent]\n"+agent+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return run(t, "run", "--check-config", "--config", path)
	}
	for agent, want := range map[string]string{
		`url = "https://127.0.0.1"`:                                         "agent.url: 127.0.0.1 is a loopback address",
		`url = "https://[::1]"`:                                             "agent.url: ::1 is a loopback address",
		`url = "https://10.0.0.1"`:                                          "agent.url: 10.0.0.1 is a private address; agents must be reached at public addresses, or on a private network listed in agent.allow_networks",
		`url = "https://169.254.169.254"`:                                   "agent.url: 169.254.169.254 is a link-local address",
		`url = "https://agent.example:0"`:                                   "agent.url: port 0",
		`url = "https://agent.example/../agui"`:                             "agent.url: the path",
		"url = \"https://agent.example\"\nallow_networks = [\"0.0.0.0/0\"]": "agent.allow_networks[0]: 0.0.0.0/0 allows every address",
		"url = \"https://agent.example\"\nca_file = \"" + filepath.Join(dir, "nope.pem") + "\"": "agent.ca_file: " + filepath.Join(dir, "nope.pem") + " does not exist",
		"url = \"https://agent.example\"\nca_file = \"" + keyOnly + "\"":                        "agent.ca_file: " + keyOnly + " holds a PEM \"EC PRIVATE KEY\" block",
	} {
		code, out, errs := check(agent)
		if code != 2 || !strings.Contains(errs, want) || strings.Contains(out, "configuration OK") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 saying %q", agent, code, out, errs, want)
		}
	}
	for _, agent := range []string{
		"url = \"https://10.20.0.1:8443\"\nallow_networks = [\"10.20.0.0/16\", \"fd12:3456::/48\"]\nca_file = \"" + caFile + "\"",
		"url = \"http://127.0.0.1:8080\"\nallow_insecure_local = true",
		"url = \"https://[::1]:8443\"\nallow_insecure_local = true",
		`url = "https://agent.example"`,
	} {
		if code, out, errs := check(agent); code != 0 || !strings.Contains(out, "configuration OK") {
			t.Errorf("%s: exit %d, %s%s", agent, code, out, errs)
		}
	}
}
