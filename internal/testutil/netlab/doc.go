// Package netlab builds an impaired network for tests from real parts: two
// network namespaces (the agent's and the kiosk's) joined by a veth pair,
// nftables rules for random loss (numgen random mod 100 < N drop) and a
// firewall that drops every UDP datagram and every TCP connection but to
// port 443, the case of hotel and hospital networks the kiosk must still
// reach its agent through (a TURN server over TLS on 443). Nothing leaves
// the two namespaces. This machine's kernels have neither a netem qdisc
// nor nfnetlink_queue, so Jitter delays each side's datagrams to the other
// itself, through a TUN device in each namespace.
//
// Tests only: it needs root (CAP_SYS_ADMIN, CAP_NET_ADMIN), iproute2 and
// nftables (Jitter also /dev/net/tun and sysctl), and ends the test (Fatal under ACBRIDGE_REQUIRE_SERVICES,
// Skip otherwise) when one is missing.
package netlab
