package netpolicy

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func rules(loopback bool, nets ...string) *Rules {
	r := &Rules{Loopback: loopback}
	for _, n := range nets {
		r.Allow = append(r.Allow, netip.MustParsePrefix(n))
	}
	return r
}

// The private ranges are refused by default, naming agent.allow_networks
// as the fix; listed networks open exactly themselves, in their
// IPv4-mapped form too, over https only.
func TestAllowNetworks(t *testing.T) {
	def := rules(false)
	onPrem := rules(false, "10.20.0.0/16", "172.16.5.0/24", "192.168.1.0/24", "fd12:3456::/48", "100.64.7.0/24")
	for _, c := range []struct {
		addr    string
		allowed bool // under onPrem
	}{
		{"10.20.0.1", true},
		{"10.20.255.254", true},
		{"::ffff:10.20.0.1", true},
		{"10.21.0.1", false},
		{"::ffff:10.21.0.1", false},
		{"10.0.0.1", false},
		{"172.16.5.9", true},
		{"172.16.6.9", false},
		{"172.31.0.1", false},
		{"192.168.1.20", true},
		{"::ffff:192.168.1.20", true},
		{"192.168.2.20", false},
		{"fd12:3456::1", true},
		{"fd12:3456:0:ffff::1", true},
		{"fd12:3456:1::1", false},
		{"fd12:3457::1", false},
		{"fd00::1", false},
		{"fc00::1", false},
		{"100.64.7.1", true},
		{"100.64.8.1", false},
	} {
		a := netip.MustParseAddr(c.addr)
		err := def.Check(a, true)
		var rf *Refusal
		if !errors.As(err, &rf) || rf.Fix != NeedAllowed || !strings.Contains(err.Error(), "agent.allow_networks") {
			t.Errorf("%s by default: %v; want a refusal naming agent.allow_networks", c.addr, err)
		}
		if err := onPrem.Check(a, true); (err == nil) != c.allowed {
			t.Errorf("%s with allow_networks: %v, want allowed %v", c.addr, err, c.allowed)
		}
		if c.allowed {
			if err := onPrem.Check(a, false); err == nil || !strings.Contains(err.Error(), "https only") {
				t.Errorf("%s over plain http: %v; want refused", c.addr, err)
			}
		}
	}
}

// Whatever prefixes a Rules holds, only private addresses pass through
// them: loopback, link-local (the metadata service), public, special and
// NAT64 addresses keep the default policy.
func TestAllowNetworksNeverOpenMore(t *testing.T) {
	wide := rules(false, "0.0.0.0/0", "::/0")
	for _, s := range []string{"127.0.0.1", "::1", "::ffff:127.0.0.1", "169.254.169.254", "::ffff:169.254.169.254", "fe80::1",
		"0.0.0.0", "::", "224.0.0.1", "ff02::1", "192.0.2.1", "198.18.0.1", "240.0.0.1", "64:ff9b::a14:1", "::a14:1", "2002:a14:1::1", "fec0::1"} {
		if err := wide.Check(netip.MustParseAddr(s), true); err == nil {
			t.Errorf("%s allowed through 0.0.0.0/0", s)
		}
	}
	// A public address passes with or without a list; plain http only
	// under the local-development policy, to loopback.
	if err := wide.Check(netip.MustParseAddr("93.184.216.34"), true); err != nil {
		t.Error(err)
	}
	if err := rules(true, "10.0.0.0/8").Check(netip.MustParseAddr("127.0.0.1"), false); err != nil {
		t.Errorf("loopback over http under the local-development policy: %v", err)
	}
	if err := rules(true, "10.0.0.0/8").Check(netip.MustParseAddr("10.0.0.1"), false); err == nil {
		t.Error("http to an allowed private address under the local-development policy passed")
	}
}

// agent.allow_networks entries that cannot be right are refused with the
// fix; the forms an operator writes for a private network are accepted
// and normalised.
func TestParseNetwork(t *testing.T) {
	for in, want := range map[string]string{
		"10.20.0.0/16":         "10.20.0.0/16",
		"10.20.3.4/16":         "10.20.0.0/16",
		"10.20.0.5":            "10.20.0.5/32",
		"::ffff:10.20.0.0/112": "10.20.0.0/16",
		"fd12:3456::/48":       "fd12:3456::/48",
		"172.16.0.0/12":        "172.16.0.0/12",
		"192.168.0.0/16":       "192.168.0.0/16",
		"fd00::/8":             "fd00::/8",
		"100.64.0.0/10":        "100.64.0.0/10",
	} {
		p, err := ParseNetwork(in)
		if err != nil || p.String() != want {
			t.Errorf("%s: %v, %v; want %s", in, p, err, want)
		}
	}
	for in, want := range map[string]string{
		"0.0.0.0/0":            "allows every address",
		"::/0":                 "allows every address",
		"0.0.0.0/1":            "loopback",
		"127.0.0.0/8":          "loopback",
		"127.0.0.1":            "loopback",
		"::1/128":              "loopback",
		"::ffff:127.0.0.0/104": "loopback",
		"169.254.0.0/16":       "link-local",
		"169.254.169.254/32":   "link-local",
		"fe80::/10":            "link-local",
		"8.8.8.0/24":           "beyond the private ranges",
		"2001:db8::/32":        "beyond the private ranges",
		"10.0.0.0/7":           "beyond the private ranges",
		"192.0.0.0/8":          "beyond the private ranges",
		"::ffff:0:0/95":        "beyond the private ranges",
		"224.0.0.0/4":          "beyond the private ranges",
		"10.20.0.0/33":         "not a network in CIDR notation",
		"10.20.0.0/":           "not a network in CIDR notation",
		"ten.twenty":           "not a network in CIDR notation",
		"fe80::1%eth0":         "not a network in CIDR notation",
		"":                     "not a network in CIDR notation",
	} {
		_, err := ParseNetwork(in)
		if !errors.Is(err, ErrNetwork) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "list") && !strings.Contains(err.Error(), "write it like") {
			t.Errorf("%q: %v; want a refusal saying %q and the fix", in, err, want)
		}
	}
}
