package config

import (
	"strings"
	"testing"
)

// --check-config and start-up run the client's network policy on address
// literals in agent.url (every dial would refuse them) and refuse a port
// or path no agent is reached at, naming the key and the fix.
func TestRefusesAgentAddressesThePolicyRefuses(t *testing.T) {
	for url, want := range map[string]string{
		"https://127.0.0.1":                "agent.url: 127.0.0.1 is a loopback address; allowed only under the local-development policy",
		"https://[::1]":                    "agent.url: ::1 is a loopback address",
		"https://[::ffff:127.0.0.1]":       "agent.url: 127.0.0.1 is a loopback address",
		"https://10.0.0.1":                 "agent.url: 10.0.0.1 is a private address; agents must be reached at public addresses, or on a private network listed in agent.allow_networks",
		"https://[::ffff:10.0.0.1]:8443":   "agent.url: 10.0.0.1 is a private address",
		"https://[fd00::1]":                "agent.url: fd00::1 is a private address",
		"https://169.254.169.254":          "agent.url: 169.254.169.254 is a link-local address; no agent is reached at one (169.254.169.254 is a cloud metadata service)",
		"https://[fe80::1%25eth0]":         "agent.url: fe80::1 is a link-local address",
		"https://0.0.0.0":                  "agent.url: 0.0.0.0 is the unspecified address",
		"https://192.0.2.1":                "agent.url: 192.0.2.1 is in a documentation range",
		"https://[64:ff9b::a00:1]":         "NAT64 address for 10.0.0.1",
		"https://agent.example:0":          "agent.url: port 0 is not a port an agent listens on",
		"https://agent.example:65536":      "agent.url: port 65536",
		"https://agent.example/../agui":    "agent.url: the path \"/../agui\" has a . or .. segment",
		"https://agent.example/a/./b":      "segment",
		"https://agent.example/a/%2e%2e/b": "segment",
	} {
		_, err := Parse([]byte("[agent]\nurl = \"" + url + "\"\n"))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v; want %q", url, err, want)
		}
	}
	// The allow list widens the policy only over https, only to the
	// listed networks.
	const onPrem = "allow_networks = [\"10.20.0.0/16\", \"fd12:3456::/48\"]\n"
	for url, want := range map[string]string{
		"https://10.21.0.1": "10.21.0.1 is a private address",
		"https://127.0.0.1": "loopback",
		"http://10.20.0.1":  "http is allowed only to a loopback address",
	} {
		_, err := Parse([]byte("[agent]\nurl = \"" + url + "\"\n" + onPrem))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s with allow_networks: %v; want %q", url, err, want)
		}
	}
}

// Every agent.allow_networks entry that cannot be right is refused with
// its index, what is wrong and the fix.
func TestRefusesAllowNetworksThatCannotBeRight(t *testing.T) {
	for entry, want := range map[string]string{
		"0.0.0.0/0":      "agent.allow_networks[1]: 0.0.0.0/0 allows every address",
		"::/0":           "agent.allow_networks[1]: ::/0 allows every address",
		"8.8.8.0/24":     "agent.allow_networks[1]: 8.8.8.0/24 reaches beyond the private ranges",
		"10.0.0.0/7":     "reaches beyond the private ranges",
		"127.0.0.0/8":    "agent.allow_networks[1]: 127.0.0.0/8 holds loopback addresses",
		"169.254.0.0/16": "agent.allow_networks[1]: 169.254.0.0/16 holds link-local addresses",
		"10.20.0.0/40":   `agent.allow_networks[1]: "10.20.0.0/40" is not a network in CIDR notation; write it like "10.20.0.0/16"`,
	} {
		_, err := Parse([]byte("[agent]\nurl = \"https://agent.example\"\nallow_networks = [\"10.20.0.0/16\", \"" + entry + "\"]\n"))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "list") && !strings.Contains(err.Error(), "write it like") {
			t.Errorf("%s: %v; want %q and the fix", entry, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "netpolicy:") {
			t.Errorf("%s: the error repeats the package: %v", entry, err)
		}
	}
}

// What was allowed stays allowed: names (judged at connect time), public
// literals, loopback under the local-development policy, and private
// literals in a listed network over https.
func TestAcceptsAgentAddressesThePolicyAllows(t *testing.T) {
	for _, text := range []string{
		"[agent]\nurl = \"https://agent.example\"\n",
		"[agent]\nurl = \"https://agent.example:8443/agui/x\"\n",
		"[agent]\nurl = \"https://93.184.216.34\"\n",
		"[agent]\nurl = \"https://[2606:2800:220:1:248:1893:25c8:1946]:443\"\n",
		"[agent]\nurl = \"https://[64:ff9b::5db8:d822]\"\n",
		"[agent]\nurl = \"https://127.0.0.1:8443\"\nallow_insecure_local = true\n",
		"[agent]\nurl = \"https://[::1]\"\nallow_insecure_local = true\n",
		"[agent]\nurl = \"http://127.0.0.1:8080\"\nallow_insecure_local = true\n",
		"[agent]\nurl = \"https://10.20.0.1:8443\"\nallow_networks = [\"10.20.0.0/16\"]\n",
		"[agent]\nurl = \"https://[::ffff:10.20.0.1]\"\nallow_networks = [\"10.20.0.0/16\"]\n",
		"[agent]\nurl = \"https://[fd12:3456::1]\"\nallow_networks = [\"fd12:3456::/48\"]\n",
		"[agent]\nurl = \"https://10.20.0.1\"\nallow_networks = [\"::ffff:10.20.0.0/112\"]\n",
		"[agent]\nurl = \"https://agent.intranet\"\nallow_networks = [\"10.20.0.5\", \"192.168.0.0/16\"]\nca_file = \"/etc/acbridge/intranet-ca.pem\"\n",
	} {
		if _, err := Parse([]byte(text)); err != nil {
			t.Errorf("refused:\n%s\n%v", text, err)
		}
	}
}
