package netpolicy

import (
	"fmt"
	"net/netip"
	"strings"
)

const rangesList = "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or fc00::/7"

var (
	loopbackNets  = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	linkLocalNets = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")}
)

// ParseNetwork parses one agent.allow_networks entry: a network in CIDR
// notation ("10.20.0.0/16", "fd12:3456::/48") or one address (the agent's
// own, "10.20.0.5"). Host bits are cleared, and an IPv4-mapped IPv6 network
// (::ffff:10.20.0.0/112) becomes the IPv4 network it maps. A network that
// cannot be right is refused, with the fix: the whole address space, one
// that holds loopback or link-local addresses (169.254.169.254 is the
// cloud metadata service), or one reaching beyond the private ranges
// (public addresses need no allowing). Errors wrap ErrNetwork.
func ParseNetwork(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		a, aerr := netip.ParseAddr(s)
		if aerr != nil || a.Zone() != "" {
			return netip.Prefix{}, fmt.Errorf("%w: %q is not a network in CIDR notation; write it like \"10.20.0.0/16\" or \"fd12:3456::/48\"", ErrNetwork, clip(s))
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	if a := p.Addr(); a.Is4In6() && p.Bits() >= 96 {
		p = netip.PrefixFrom(a.Unmap(), p.Bits()-96)
	}
	p = p.Masked()
	switch {
	case p.Bits() == 0:
		return p, fmt.Errorf("%w: %s allows every address, the internet and this kiosk's own services included; list only the private network the agent is on, like 10.20.0.0/16", ErrNetwork, p)
	case overlapsAny(p, loopbackNets):
		return p, fmt.Errorf("%w: %s holds loopback addresses, which are this kiosk's own services; list only the agent's private network (loopback is for local development: agent.allow_insecure_local)", ErrNetwork, p)
	case overlapsAny(p, linkLocalNets):
		return p, fmt.Errorf("%w: %s holds link-local addresses (169.254.0.0/16 and fe80::/10, where cloud metadata services answer); list only the agent's private network", ErrNetwork, p)
	case !insideAny(p, privateRanges):
		return p, fmt.Errorf("%w: %s reaches beyond the private ranges (%s): public addresses need no allowing and other ranges hold no agent; list only the agent's private network", ErrNetwork, p, rangesList)
	}
	return p, nil
}

func overlapsAny(p netip.Prefix, nets []netip.Prefix) bool {
	for _, n := range nets {
		if p.Overlaps(n) {
			return true
		}
	}
	return false
}

// insideAny reports whether all of p lies in one of nets.
func insideAny(p netip.Prefix, nets []netip.Prefix) bool {
	for _, n := range nets {
		if n.Bits() <= p.Bits() && n.Contains(p.Addr()) {
			return true
		}
	}
	return false
}

func clip(s string) string {
	if r := []rune(s); len(r) > 48 {
		return string(r[:48]) + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
