package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentcall/acbridge/internal/redact"
	"github.com/agentcall/acbridge/protocol"
)

// CardPath is where an agent serves its A2A Agent Card.
const CardPath = "/.well-known/agent-card.json"

// ErrIncompatible marks an enrollment incompatibility: the card is valid
// JSON from a reachable agent, but this client cannot use it (an unknown
// required extension, an unsupported transport, physical inputs on an
// unmapped profile, a broken card rule).
var ErrIncompatible = errors.New("client: the agent card is incompatible with this client")

type incompatibleError struct{ err error }

func (e *incompatibleError) Error() string {
	return "client: cannot enroll with this agent: " + e.err.Error()
}
func (e *incompatibleError) Is(t error) bool { return t == ErrIncompatible }
func (e *incompatibleError) Unwrap() error   { return e.err }

// Discovered is an agent found by Discover: its validated card and where
// and how to reach it (the server side is package agent).
type Discovered struct {
	Card *protocol.Card
	// Origin is the card's own origin (scheme://host[:port]): the alias
	// scope, and the only origin that ever receives the bearer token.
	Origin string
	// AGUI is the card's AG-UI URL; WSURL its ws(s) form.
	AGUI  *url.URL
	WSURL *url.URL

	token  string
	policy *Policy
}

// Discover fetches and validates the agent card at base (an agent base URL
// such as https://agent.example) under policy p. token, if not empty, is
// sent as a bearer token to the card's origin only.
func Discover(ctx context.Context, base, token string, p *Policy) (_ *Discovered, err error) {
	// Whatever the agent made an error quote (a header, a body, a host
	// name), its text leaves without the token.
	defer func() { err = redact.New(token).Error(err) }()
	p = p.orDefault()
	bu, err := url.Parse(base)
	if err != nil || bu.Host == "" {
		return nil, fmt.Errorf("client: agent URL must be absolute, like https://agent.example")
	}
	if bu.RawQuery != "" || bu.Fragment != "" {
		return nil, fmt.Errorf("client: agent URL must not carry a query or fragment (tokens go in a token file)")
	}
	cardURL := *bu
	cardURL.Path = strings.TrimSuffix(bu.Path, "/") + CardPath
	t, err := p.resolve(ctx, &cardURL)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, p.TotalTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("client: card request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := p.httpClient(t).Do(req)
	if err != nil {
		return nil, fmt.Errorf("client: fetching the agent card from %s: %w", origin(&cardURL), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return nil, refuse("the agent card request was redirected (HTTP %d); redirects are not followed", resp.StatusCode)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("client: the agent card request failed: HTTP %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil, fmt.Errorf("client: the agent card has content type %q, not application/json", mt)
	}
	if resp.ContentLength > protocol.MaxCardBytes {
		return nil, &incompatibleError{&protocol.Error{Code: protocol.CodeCardSize, Message: fmt.Sprintf("card is %d bytes; the limit is %d", resp.ContentLength, protocol.MaxCardBytes)}}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, protocol.MaxCardBytes+1))
	if err != nil {
		return nil, fmt.Errorf("client: reading the agent card: %w", err)
	}
	if len(raw) > protocol.MaxCardBytes {
		return nil, &incompatibleError{&protocol.Error{Code: protocol.CodeCardSize, Message: fmt.Sprintf("card is larger than %d bytes", protocol.MaxCardBytes)}}
	}
	card, err := protocol.ParseCard(raw)
	if err != nil {
		return nil, &incompatibleError{err}
	}
	if err := card.Usable(); err != nil {
		return nil, &incompatibleError{err}
	}
	agui, err := url.Parse(card.Params.AGUI.URL)
	if err != nil || agui.Host == "" {
		return nil, &incompatibleError{&protocol.Error{Code: protocol.CodeCardSchema, Message: "agui.url is not an absolute URL"}}
	}
	ws := *agui
	switch agui.Scheme {
	case "https":
		ws.Scheme = "wss"
	case "http":
		ws.Scheme = "ws"
	}
	// The AG-UI endpoint is checked now too, so enrollment fails early.
	if _, err := p.resolve(ctx, agui); err != nil {
		return nil, err
	}
	return &Discovered{Card: card, Origin: origin(&cardURL), AGUI: agui, WSURL: &ws, token: token, policy: p}, nil
}

// authHeader returns the Authorization header for a request to u: the
// bearer token only when u has the card's own origin.
func (a *Discovered) authHeader(u *url.URL) http.Header {
	h := http.Header{}
	if a.token != "" && origin(u) == a.Origin {
		h.Set("Authorization", "Bearer "+a.token)
	}
	return h
}

// redact returns err without the token in its text: every error a dial
// returns passes here once, whatever in it the agent supplied.
func (a *Discovered) redact(err error) error { return redact.New(a.token).Error(err) }
