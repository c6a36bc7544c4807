package client

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
)

// refusedAddresses are the addresses the production policy must refuse,
// with the words the refusal must carry (the ranges and those around them). The embedded IPv4 address of a transition prefix is named,
// so that an operator sees where the packets would really go.
var refusedAddresses = []struct{ addr, why string }{
	{"64:ff9b::a00:1", "NAT64 address for 10.0.0.1"},
	{"64:ff9b::7f00:1", "NAT64 address for 127.0.0.1"},
	{"64:ff9b::c0a8:101", "NAT64 address for 192.168.1.1"},
	{"64:ff9b::6440:1", "NAT64 address for 100.64.0.1"},
	{"64:ff9b:1::a00:1", "the local-use NAT64 range"},
	{"2002:a00:1::1", "the deprecated 6to4 range (2002::/16), embedding 10.0.0.1"},
	{"2002:5db8:d822::1", "the deprecated 6to4 range (2002::/16), embedding 93.184.216.34"},
	{"::a00:1", "the deprecated IPv4-compatible range (::/96), embedding 10.0.0.1"},
	{"::5db8:d822", "the deprecated IPv4-compatible range (::/96), embedding 93.184.216.34"},
	{"::ffff:10.0.0.1", "10.0.0.1 is a private address"},
	{"::ffff:127.0.0.1", "127.0.0.1 is a loopback address"},
	{"::ffff:0:a00:1", "the IPv4-translated range (::ffff:0:0:0/96), embedding 10.0.0.1"},
	{"fec0::1", "the deprecated site-local range"},
	{"0.0.0.0", "unspecified"},
	{"0.1.2.3", `"this network"`},
	{"0.255.255.255", `"this network"`},
	{"192.88.99.1", "the deprecated 6to4 relay anycast range"},
	{"2001:0:4136:e378:8000:63bf:3fff:fdd2", "the Teredo tunnelling range (2001::/32), embedding 192.0.2.45"},
	{"100::1", "discard-only"},
	{"2001:2::1", "benchmarking"},
	{"2001:10::1", "ORCHID"},
	{"2001:20::1", "ORCHIDv2"},
	{"2001:db8::1", "documentation"},
	{"3fff::1", "documentation"},
	{"5f00::1", "SRv6"},
	{"10.0.0.1", "private"},
	{"fd00::1", "private"},
	{"169.254.169.254", "link-local"},
	{"fe80::1", "link-local"},
	{"100.64.0.1", "carrier-grade NAT"},
	{"192.0.0.8", "IETF protocol assignments"},
	{"198.18.0.1", "benchmarking"},
	{"240.0.0.1", "reserved"},
	{"255.255.255.255", "not a global unicast address"},
	{"224.0.0.1", "link-local address"},
	{"239.1.1.1", "multicast"},
	{"ff02::1", "link-local address"},
	{"ff0e::1", "multicast"},
	{"127.0.0.1", "loopback"},
	{"::1", "loopback"},
}

// Every refused address is refused as an agent's host (a URL literal and a
// DNS answer) and as an ICE candidate, with its reason; public addresses,
// NAT64 ones for a public IPv4 address included, pass.
func TestPolicyRefusedAddresses(t *testing.T) {
	prod := (&Policy{}).orDefault()
	for _, c := range refusedAddresses {
		ip := net.ParseIP(c.addr)
		if ip == nil {
			t.Fatalf("bad test address %s", c.addr)
		}
		u := &url.URL{Scheme: "https", Host: "[" + c.addr + "]"}
		if ip.To4() != nil {
			u.Host = c.addr
		}
		_, err := prod.resolve(context.Background(), u)
		if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s as a URL host: %v; want a refusal saying %q", c.addr, err, c.why)
		}
		byName := (&Policy{LookupIP: func(context.Context, string) ([]net.IP, error) {
			return []net.IP{net.ParseIP("93.184.216.34"), ip}, nil
		}}).orDefault()
		if _, err := byName.resolve(context.Background(), &url.URL{Scheme: "https", Host: "agent.example"}); !errors.Is(err, ErrPolicy) {
			t.Errorf("%s in a DNS answer: %v", c.addr, err)
		}
		if newCandidateLog(prod).allow(ip) {
			t.Errorf("%s allowed as an ICE candidate", c.addr)
		}
	}
	for _, a := range []string{"93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946", "64:ff9b::5db8:d822", "::ffff:93.184.216.34", "1.1.1.1"} {
		if !newCandidateLog(prod).allow(net.ParseIP(a)) {
			t.Errorf("%s refused", a)
		}
	}
	// Under the local-development policy loopback is allowed, but not
	// through a translator.
	local := (&Policy{AllowInsecureLocal: true}).orDefault()
	for a, want := range map[string]bool{"127.0.0.1": true, "::1": true, "64:ff9b::7f00:1": false, "::ffff:127.0.0.1": true, "::7f00:1": false} {
		if got := newCandidateLog(local).allow(net.ParseIP(a)); got != want {
			t.Errorf("%s under the local-development policy: %v", a, got)
		}
	}
}
