package netpolicy

import (
	"encoding/binary"
	"net/netip"
)

// specialRange is an address block no agent is reached at, which netip has
// no predicate for: shared, reserved, documentation and deprecated
// transition ranges (IANA special-purpose registries, RFC 6890). embedded
// says where an IPv4 address sits in an IPv6 block, so that the refusal
// names the IPv4 address the packets would really reach.
type specialRange struct {
	prefix   netip.Prefix
	why      string
	embedded func(netip.Addr) netip.Addr
}

var specialRanges = []specialRange{
	{netip.MustParsePrefix("0.0.0.0/8"), `the "this network" range (0.0.0.0/8), never a destination`, nil},
	{netip.MustParsePrefix("100.64.0.0/10"), "the carrier-grade NAT shared range (100.64.0.0/10)", nil},
	{netip.MustParsePrefix("192.0.0.0/24"), "the IETF protocol assignments range (192.0.0.0/24)", nil},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation range (192.0.2.0/24)", nil},
	{netip.MustParsePrefix("192.88.99.0/24"), "the deprecated 6to4 relay anycast range (192.88.99.0/24)", nil},
	{netip.MustParsePrefix("198.18.0.0/15"), "the benchmarking range (198.18.0.0/15)", nil},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation range (198.51.100.0/24)", nil},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation range (203.0.113.0/24)", nil},
	{netip.MustParsePrefix("240.0.0.0/4"), "the reserved range (240.0.0.0/4)", nil},
	{netip.MustParsePrefix("::/96"), "the deprecated IPv4-compatible range (::/96)", low32},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "the IPv4-translated range (::ffff:0:0:0/96)", low32},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "the local-use NAT64 range (64:ff9b:1::/48)", nil},
	{netip.MustParsePrefix("100::/64"), "the discard-only range (100::/64)", nil},
	{netip.MustParsePrefix("2001::/32"), "the Teredo tunnelling range (2001::/32)", teredoClient},
	{netip.MustParsePrefix("2001:2::/48"), "the benchmarking range (2001:2::/48)", nil},
	{netip.MustParsePrefix("2001:10::/28"), "the deprecated ORCHID range (2001:10::/28)", nil},
	{netip.MustParsePrefix("2001:20::/28"), "the ORCHIDv2 range (2001:20::/28)", nil},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation range (2001:db8::/32)", nil},
	{netip.MustParsePrefix("2002::/16"), "the deprecated 6to4 range (2002::/16)", sixToFour},
	{netip.MustParsePrefix("3fff::/20"), "a documentation range (3fff::/20)", nil},
	{netip.MustParsePrefix("5f00::/16"), "the SRv6 segment identifier range (5f00::/16)", nil},
	{netip.MustParsePrefix("fec0::/10"), "the deprecated site-local range (fec0::/10)", nil},
}

// nat64 is the well-known NAT64 prefix (RFC 6052): a DNS64 resolver on an
// IPv6-only network hands these out for IPv4-only hosts, so an agent may
// legitimately be reached there; the address is judged by the IPv4 address
// it embeds.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// specialRangeOf returns the range a falls in, if any.
func specialRangeOf(a netip.Addr) (specialRange, bool) {
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r, true
		}
	}
	return specialRange{}, false
}

// low32 is the IPv4 address in the last 32 bits (IPv4-compatible,
// IPv4-translated and NAT64 addresses).
func low32(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[12:16]))
}

// sixToFour is the IPv4 address of a 6to4 site, in bits 16 to 47.
func sixToFour(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[2:6]))
}

// teredoClient is the Teredo client's public IPv4 address, stored inverted
// in the last 32 bits (RFC 4380 §4).
func teredoClient(a netip.Addr) netip.Addr {
	b := a.As16()
	var v4 [4]byte
	binary.BigEndian.PutUint32(v4[:], ^binary.BigEndian.Uint32(b[12:16]))
	return netip.AddrFrom4(v4)
}
