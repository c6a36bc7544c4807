package client

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"testing"
)

// AllowNetworks opens exactly its networks, in their IPv4-mapped form too,
// to the agent's host (a literal or a DNS answer) and to its ICE
// candidates, over https only; the rest of the private ranges stays
// refused, lasting, with agent.allow_networks as the fix. Nothing is
// dialled: resolve and the candidate filter only judge addresses.
func TestAllowNetworksPolicy(t *testing.T) {
	onPrem := (&Policy{AllowNetworks: []netip.Prefix{netip.MustParsePrefix("10.20.0.0/16"), netip.MustParsePrefix("fd12:3456::/48")}}).orDefault()
	prod := (&Policy{}).orDefault()
	for addr, allowed := range map[string]bool{
		"10.20.0.1": true, "::ffff:10.20.0.1": true, "fd12:3456::1": true,
		"10.21.0.1": false, "::ffff:10.21.0.1": false, "192.168.1.1": false, "172.16.0.1": false, "fd00::1": false,
		"64:ff9b::a14:1": false, "::a14:1": false,
	} {
		ip := net.ParseIP(addr)
		host := addr
		if ip.To4() == nil || strings.Contains(addr, ":") {
			host = "[" + addr + "]"
		}
		byName := *onPrem
		byName.LookupIP = func(context.Context, string) ([]net.IP, error) { return []net.IP{ip}, nil }
		for name, p := range map[string]*Policy{"literal": onPrem, "DNS answer": &byName} {
			u := &url.URL{Scheme: "https", Host: host}
			if name == "DNS answer" {
				u.Host = "agent.intranet"
			}
			_, err := p.resolve(context.Background(), u)
			if (err == nil) != allowed {
				t.Errorf("%s as a %s: %v, want allowed %v", addr, name, err, allowed)
			}
			if err != nil && Lasting(err) != WarnNetwork {
				t.Errorf("%s as a %s: refusal %v is not lasting", addr, name, err)
			}
		}
		if got := newCandidateLog(onPrem).allow(ip); got != allowed {
			t.Errorf("%s as an ICE candidate: %v, want %v", addr, got, allowed)
		}
		_, err := prod.resolve(context.Background(), &url.URL{Scheme: "https", Host: host})
		if !errors.Is(err, ErrPolicy) || Lasting(err) != WarnNetwork {
			t.Errorf("%s under the production policy: %v", addr, err)
		}
		if newCandidateLog(prod).allow(ip) {
			t.Errorf("%s allowed as an ICE candidate under the production policy", addr)
		}
	}
	_, err := prod.resolve(context.Background(), &url.URL{Scheme: "https", Host: "10.20.0.1"})
	if err == nil || !strings.Contains(err.Error(), "10.20.0.1 is a private address; agents must be reached at public addresses, or on a private network listed in agent.allow_networks") {
		t.Errorf("the refusal does not name agent.allow_networks: %v", err)
	}
	// Plain http stays loopback-only, even to an allowed network under the
	// local-development policy.
	local := *onPrem
	local.AllowInsecureLocal = true
	if _, err := local.resolve(context.Background(), &url.URL{Scheme: "http", Host: "10.20.0.1"}); !errors.Is(err, ErrPolicy) {
		t.Errorf("http to an allowed network: %v", err)
	}
	// The candidate refusal names the setting too.
	l := newCandidateLog(prod)
	l.checkAnswer("a=candidate:1 1 udp 2130706431 10.20.0.1 5000 typ host\n")
	if err := l.allRefused(); !strings.Contains(err.Error(), "10.20.0.1 is a private address; ") || !strings.Contains(err.Error(), "agent.allow_networks") {
		t.Errorf("every candidate refused: %v", err)
	}
}
