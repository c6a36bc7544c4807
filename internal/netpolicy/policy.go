package netpolicy

import (
	"errors"
	"fmt"
	"net/netip"
)

// Rules are the opt-ins beyond the default of public addresses only. The
// zero value is the production policy.
type Rules struct {
	// Loopback is the explicit local-development policy: loopback
	// addresses are allowed, and plain http/ws only to them.
	Loopback bool
	// Allow are the private networks an on-premises agent may be reached
	// at, over https/wss (or DTLS) only. Only addresses in the private
	// ranges (see Private) are ever allowed through them, whatever a
	// prefix covers; use ParseNetwork to refuse prefixes that reach
	// beyond them.
	Allow []netip.Prefix
}

// Fixes that end a refusal: what the operator can do about it.
const (
	// NeedPublic ends the refusal of an address no setting allows.
	NeedPublic = "; agents must be reached at public addresses"
	// NeedAllowed ends the refusal of a private address a setting could
	// allow.
	NeedAllowed = "; agents must be reached at public addresses, or on a private network listed in agent.allow_networks (over https)"
)

// Refusal is why an address is refused: Msg says what the address is,
// Fix what would be allowed instead (it starts with "; ").
type Refusal struct {
	Addr netip.Addr
	Msg  string
	Fix  string
}

func (r *Refusal) Error() string { return r.Msg + r.Fix }

func refuse(a netip.Addr, fix, format string, args ...any) *Refusal {
	return &Refusal{Addr: a, Msg: fmt.Sprintf(format, args...), Fix: fix}
}

// Check applies the rules to a; secure says whether the connection is
// https/wss (or DTLS, for ICE candidates). The error is a *Refusal.
// IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are judged as the IPv4
// address they carry on the wire.
func (r *Rules) Check(a netip.Addr, secure bool) error {
	if rf := r.check(a, secure); rf != nil {
		return rf
	}
	return nil
}

func (r *Rules) check(a netip.Addr, secure bool) *Refusal {
	a = a.Unmap().WithZone("")
	if r.allowed(a) {
		if !secure {
			return refuse(a, "; use https: plain http/ws is allowed only to loopback addresses, under the local-development policy", "%s is in agent.allow_networks, which allows https only", a)
		}
		return nil
	}
	switch {
	case a.IsLoopback():
		if !r.Loopback {
			return refuse(a, "", "%s is a loopback address; allowed only under the local-development policy (--allow-insecure-local)", a)
		}
		return nil
	case a.IsUnspecified():
		return refuse(a, "; give the agent's own address", "%s is the unspecified address", a)
	case a.IsPrivate():
		return refuse(a, NeedAllowed, "%s is a private address", a)
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return refuse(a, "; no agent is reached at one (169.254.169.254 is a cloud metadata service): give the agent's routable address", "%s is a link-local address", a)
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return refuse(a, "; give the agent's own (unicast) address", "%s is a multicast address", a)
	case !a.IsGlobalUnicast():
		return refuse(a, NeedPublic, "%s is not a global unicast address", a)
	}
	if sr, ok := specialRangeOf(a); ok {
		fix := NeedPublic
		if Private(a) {
			fix = NeedAllowed
		}
		if sr.embedded != nil {
			return refuse(a, fix, "%s is in %s, embedding %s", a, sr.why, sr.embedded(a))
		}
		return refuse(a, fix, "%s is in %s", a, sr.why)
	}
	if nat64.Contains(a) {
		// A translator would carry the packets to the embedded address:
		// only a public one may be reached this way, whatever the opt-ins
		// (loopback or an allowed network through NAT64 is not the kiosk's
		// own or its LAN's).
		v4 := low32(a)
		if inner := (&Rules{}).check(v4, true); inner != nil {
			return refuse(a, "", "%s is a NAT64 address for %s, which is refused: %s", a, v4, inner.Msg)
		}
	}
	if !secure {
		return refuse(a, "", "plain http/ws is allowed only to loopback addresses")
	}
	return nil
}

// allowed reports whether a is in an allowed network, and private.
func (r *Rules) allowed(a netip.Addr) bool {
	if len(r.Allow) == 0 || !Private(a) {
		return false
	}
	for _, p := range r.Allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// privateRanges are the networks agent.allow_networks may name: the
// private-use ranges (RFC 1918, RFC 4193) and the shared address space
// (RFC 6598), which overlay networks on the premises use. Nothing in them
// is reachable from the internet, so an on-premises agent is there or at a
// public address.
var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("fc00::/7"),
}

// Private reports whether a is in a range agent.allow_networks may open.
func Private(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range privateRanges {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// ErrNetwork marks an agent.allow_networks entry that cannot be right.
var ErrNetwork = errors.New("netpolicy: not a network an on-premises agent can be on")
