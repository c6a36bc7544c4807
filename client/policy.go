package client

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
)

// Policy is the network policy for every connection to an agent: the card
// fetch, the WebSocket upgrade and the SDP exchange. The zero value (or nil)
// is the production policy: HTTPS only, public addresses only.
type Policy struct {
	// AllowInsecureLocal is the explicit local-development policy: loopback
	// addresses are allowed, and http/ws only to them.
	AllowInsecureLocal bool
	// LookupIP resolves a host name (default net.DefaultResolver); tests
	// inject one to exercise the address checks.
	LookupIP func(ctx context.Context, host string) ([]net.IP, error)
	// TLSConfig sets root CAs and the like (default: system roots).
	TLSConfig *tls.Config
	// ConnectTimeout (default 5 s), TLSTimeout (5 s) and TotalTimeout (15 s)
	// bound each request; TotalTimeout does not apply to an established
	// WebSocket.
	ConnectTimeout, TLSTimeout, TotalTimeout time.Duration
}

func (p *Policy) orDefault() *Policy {
	q := Policy{}
	if p != nil {
		q = *p
	}
	if q.LookupIP == nil {
		q.LookupIP = func(ctx context.Context, host string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", host)
		}
	}
	if q.ConnectTimeout == 0 {
		q.ConnectTimeout = 5 * time.Second
	}
	if q.TLSTimeout == 0 {
		q.TLSTimeout = 5 * time.Second
	}
	if q.TotalTimeout == 0 {
		q.TotalTimeout = 15 * time.Second
	}
	return &q
}

// ErrPolicy marks a connection refused by the network policy; errors.Is
// works on every refusal.
var ErrPolicy = errors.New("client: refused by the network policy")

type policyError struct{ msg string }

func (e *policyError) Error() string   { return "client: " + e.msg }
func (e *policyError) Is(t error) bool { return t == ErrPolicy }

func refuse(format string, a ...any) error { return &policyError{msg: fmt.Sprintf(format, a...)} }

// target is a URL whose host has been resolved and checked once; every
// connection goes to addr, never to a second lookup (no DNS rebinding).
type target struct {
	u    *url.URL
	addr netip.AddrPort
}

// resolve checks u's scheme and resolves and checks its host.
func (p *Policy) resolve(ctx context.Context, u *url.URL) (*target, error) {
	secure := u.Scheme == "https" || u.Scheme == "wss"
	if !secure && u.Scheme != "http" && u.Scheme != "ws" {
		return nil, refuse("scheme %q is not allowed; use https", u.Scheme)
	}
	if !secure && !p.AllowInsecureLocal {
		return nil, refuse("%s:// is allowed only under the local-development policy (--allow-insecure-local), and only to loopback", u.Scheme)
	}
	if u.User != nil {
		return nil, refuse("credentials in URLs are not allowed; use a token file")
	}
	host := u.Hostname()
	if host == "" {
		return nil, refuse("URL has no host")
	}
	port := u.Port()
	if port == "" {
		port = "443"
		if !secure {
			port = "80"
		}
	}
	pn, err := net.LookupPort("tcp", port)
	if err != nil {
		return nil, refuse("bad port")
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		lctx, cancel := context.WithTimeout(ctx, p.ConnectTimeout)
		ips, err = p.LookupIP(lctx, host)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("client: cannot resolve %s: %w", host, err)
		}
	}
	if len(ips) == 0 {
		return nil, fmt.Errorf("client: %s resolves to no address", host)
	}
	// Every address must pass: an attacker controlling DNS must not be able
	// to slip a private address in beside a public one.
	for _, ip := range ips {
		a, _ := netip.AddrFromSlice(ip)
		a = a.Unmap()
		if err := p.checkAddr(a, secure); err != nil {
			return nil, err
		}
	}
	a, _ := netip.AddrFromSlice(ips[0])
	return &target{u: u, addr: netip.AddrPortFrom(a.Unmap(), uint16(pn))}, nil
}

// needPublic ends a refusal of a non-public address with the rule to follow.
const needPublic = "; agents must be reached at public addresses"

// checkAddr applies the address rules to a; secure says whether the
// connection is https/wss (or DTLS, for ICE candidates).
func (p *Policy) checkAddr(a netip.Addr, secure bool) error {
	// ::ffff:a.b.c.d is a.b.c.d on the wire: judged as that.
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		if !p.AllowInsecureLocal {
			return refuse("%s is a loopback address; allowed only under the local-development policy (--allow-insecure-local)", a)
		}
		return nil
	case a.IsUnspecified():
		return refuse("%s is the unspecified address", a)
	case a.IsPrivate():
		return refuse("%s is a private address"+needPublic, a)
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return refuse("%s is a link-local address", a)
	case a.IsMulticast(), a.IsInterfaceLocalMulticast():
		return refuse("%s is a multicast address", a)
	case !a.IsGlobalUnicast():
		return refuse("%s is not a global unicast address", a)
	}
	if r, ok := specialRangeOf(a); ok {
		if r.embedded != nil {
			return refuse("%s is in %s, embedding %s"+needPublic, a, r.why, r.embedded(a))
		}
		return refuse("%s is in %s"+needPublic, a, r.why)
	}
	if nat64.Contains(a) {
		// A translator would carry the packets to the embedded address:
		// only a public one may be reached this way, even under the
		// local-development policy (loopback through NAT64 is not loopback).
		v4 := low32(a)
		var inner *policyError
		if err := (&Policy{}).checkAddr(v4, true); errors.As(err, &inner) {
			return refuse("%s is a NAT64 address for %s, which is refused: %s", a, v4, inner.msg)
		}
	}
	if !secure {
		return refuse("plain http/ws is allowed only to loopback addresses")
	}
	return nil
}

// httpClient returns a client that connects only to t.addr, follows no
// redirect and applies the policy's timeouts. TLS still verifies the URL's
// host name.
func (p *Policy) httpClient(t *target) *http.Client {
	d := &net.Dialer{Timeout: p.ConnectTimeout}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, t.addr.String())
		},
		TLSClientConfig:       p.TLSConfig.Clone(),
		TLSHandshakeTimeout:   p.TLSTimeout,
		ResponseHeaderTimeout: p.TotalTimeout,
		ForceAttemptHTTP2:     false,
		Proxy:                 nil,
		MaxIdleConns:          1,
		IdleConnTimeout:       time.Second,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// origin is scheme://host[:port] of u, with ws/wss folded to http/https.
func origin(u *url.URL) string {
	s := strings.ToLower(u.Scheme)
	switch s {
	case "wss":
		s = "https"
	case "ws":
		s = "http"
	}
	host := strings.ToLower(u.Hostname())
	port := u.Port()
	if (s == "https" && port == "443") || (s == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		return s + "://" + host + ":" + port
	}
	return s + "://" + host
}
