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

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/internal/netpolicy"
)

// Policy is the network policy for every connection to an agent: the card
// fetch, the WebSocket upgrade and the SDP exchange. The zero value (or nil)
// is the production policy: HTTPS only, public addresses only.
type Policy struct {
	// AllowInsecureLocal is the explicit local-development policy: loopback
	// addresses are allowed, and http/ws only to them.
	AllowInsecureLocal bool
	// AllowNetworks are private networks an on-premises agent may be
	// reached at (its card, AG-UI endpoint and ICE candidates), over
	// https/wss only, with certificates checked as always. Only private
	// addresses are ever allowed through them (netpolicy.ParseNetwork
	// refuses wider prefixes). Empty: public addresses only.
	AllowNetworks []netip.Prefix
	// LookupIP resolves a host name (default net.DefaultResolver); tests
	// inject one to exercise the address checks.
	LookupIP func(ctx context.Context, host string) ([]net.IP, error)
	// TLSConfig sets root CAs and the like (default: system roots; see
	// LoadCAFile for a private CA).
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

// policyError is a refusal: msg says what was refused, fix (starting with
// "; ") what would be allowed. w, if set, makes it lasting (see Lasting).
type policyError struct {
	msg, fix string
	w        *health.Warnable
}

func (e *policyError) Error() string   { return "client: " + e.msg + e.fix }
func (e *policyError) Is(t error) bool { return t == ErrPolicy }
func (e *policyError) Unwrap() error {
	if e.w == nil {
		return nil
	}
	return e.w.Err("")
}

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

// checkAddr applies the address rules to a; secure says whether the
// connection is https/wss (or DTLS, for ICE candidates). A refusal is
// lasting: the agent's address does not change between retries.
func (p *Policy) checkAddr(a netip.Addr, secure bool) error {
	r := netpolicy.Rules{Loopback: p.AllowInsecureLocal, Allow: p.AllowNetworks}
	var rf *netpolicy.Refusal
	if err := r.Check(a, secure); errors.As(err, &rf) {
		return &policyError{msg: rf.Msg, fix: rf.Fix, w: WarnNetwork}
	}
	return nil
}

// httpClient returns a client that connects only to t.addr, follows no
// redirect and applies the policy's timeouts. TLS still verifies the URL's
// host name; a certificate refusal no retry can fix says how to fix it.
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
	tr.DialTLSContext = p.dialTLS(tr)
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
