package agent

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/protocol"
)

// Paths the agent serves.
const (
	CardPath = "/.well-known/agent-card.json"
	AGUIPath = "/agui"
)

// Defaults for zero Options fields.
const (
	DefaultName         = "acbridge reference agent"
	DefaultIdleTimeout  = 10 * time.Minute
	DefaultWriteTimeout = 10 * time.Second
	DefaultMaxSessions  = 64
)

// ErrClosed is returned for work refused because the Agent was closed.
var ErrClosed = errors.New("agent: closed")

// Options configure an Agent. A nil *Options or a zero field means the
// documented default.
type Options struct {
	// Logger receives operational events: sessions, rejection codes, errors.
	// Never frames, observation contents, labels, images or tokens.
	// Default: discard.
	Logger *slog.Logger
	// Now is the clock for session durations in logs. Default: time.Now.
	Now func() time.Time
	// Transport is the card's AG-UI transport: "websocket" (the default)
	// or "webrtc" (agentcall-webrtc-0.1: the card then says voice.owner
	// "agent" and carries the exact profile with supportsExplicitTurns, and
	// /agui takes SDP offers; see webrtc.go). New refuses any other value.
	Transport string
	// PublicURL is the absolute http(s) base URL clients reach the agent
	// at; the card's AG-UI URL is PublicURL + "/agui". Default: derived per
	// request from its scheme (TLS or not) and Host. New refuses a value
	// CheckPublicURL refuses.
	PublicURL string
	// Token, when set, is required as "Authorization: Bearer TOKEN" on the
	// AG-UI endpoint (compared in constant time; 401 otherwise) and the card
	// declares a bearer security scheme. The card itself stays public.
	Token string
	// Name is the card's name. Default: DefaultName.
	Name string
	// Physical opts in to the physical profile (NFC and photo
	// observations). The spec's reference agent is text-only by default:
	// "Its ordinary public review profile remains text-only", and the
	// physical proof is an opt-in developer profile.
	Physical bool
	// Accepted and AgentRequests are the card's physical modalities when
	// Physical is set: nil means both nfc and photo, an empty non-nil slice
	// none. New checks them as ParseCard does (unique, at most two, every
	// request accepted) and refuses them without Physical.
	Accepted, AgentRequests []protocol.Modality
	// LegacyURI makes the card declare the legacy extension identifier
	// (protocol.LegacyExtensionURI) instead of the canonical one, as the
	// existing private producers do: for rollback testing with an older
	// client that does not recognize the public URI.
	LegacyURI bool
	// IdleTimeout closes a connection on which the client sent nothing for
	// this long (status 1008, reason "idle"); it also reaps half-open
	// connections whose peer vanished. Default: DefaultIdleTimeout.
	IdleTimeout time.Duration
	// WriteTimeout bounds one frame write to a client that stopped reading.
	// Default: DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxSessions bounds concurrent AG-UI connections; more get 503.
	// Default: DefaultMaxSessions.
	MaxSessions int
	// ReplyVoice shapes the generated voice that answers each committed
	// audio turn on transport webrtc. nil: audio.Voice's defaults (440 Hz,
	// 600 ms). New refuses options audio.Voice refuses.
	ReplyVoice *audio.VoiceOptions
	// ReplyEncoder encodes that voice. nil: audio's defaults (in-band FEC
	// and DTX on); NoFEC and NoDTX only to measure what they do.
	ReplyEncoder *audio.EncoderOptions
	// NoICERestart answers every offer with a session of its own, as an
	// agent without ICE restart does (aiortc): for testing a client's
	// fallback. Default: a restart offer restarts the session's ICE.
	NoICERestart bool
	// NoNACK neither asks for the client's lost voice packets nor resends
	// its own, and holds no gap open for one (to measure what NACK
	// recovers). Default: NACK both ways where the client offers it.
	NoNACK bool
	// OnAudioTurn, on transport webrtc, is called on the session's
	// goroutine after each audio turn closes (committed, cancelled, or cut
	// by the end of the session) with what arrived: counts and levels,
	// never audio. It must not block.
	OnAudioTurn func(AudioTurn)
	// NoExplicitTurns, on transport webrtc, leaves supportsExplicitTurns
	// out of the card: the agent of a client that streams audio without
	// turn messages (the agent then only counts what arrives).
	NoExplicitTurns bool
	// OnAudioPacket, on transport webrtc, is called on the track reader's
	// goroutine for every packet of the client's audio with the explicit
	// turn it arrived in (0: outside one). It must not block.
	OnAudioPacket func(turn int64)
	// OnReply, on transport webrtc, is called on a reply voice's writer
	// goroutine with the time its first packet was written to the track
	// (where a mouth-to-ear delay of the agent's voice starts). It must
	// not block.
	OnReply func(at time.Time)

	// released, if set, is called each time a connection's slot is freed,
	// so tests wait for it instead of redialling until a dial succeeds.
	released func()
	// replyEnded, if set, is called when a reply voice's writer returns
	// (played out, or stopped), with the packets it wrote: no packet of
	// that reply follows, so tests need no window for stray ones.
	replyEnded func(written int)
}

// Agent is the reference agent: an http.Handler serving the card and the
// AG-UI endpoint. Each connection is served on its handler goroutine;
// Close ends them all and waits for them.
type Agent struct {
	log       *slog.Logger
	now       func() time.Time
	transport string
	publicURL string
	tokenSum  *[sha256.Size]byte
	name      string
	cfg       protocol.SessionConfig
	uri       string // the extension identifier the card declares
	idle      time.Duration
	write     time.Duration
	maxConns  int
	mux       *http.ServeMux
	rtc       *rtcConfig // transport webrtc only
	released  func()

	ctx    context.Context // cancelled by Close; every connection derives from it
	cancel context.CancelFunc

	mu     sync.Mutex
	closed bool
	conns  int
	wg     sync.WaitGroup
}

var _ http.Handler = (*Agent)(nil)

// New returns an Agent configured by opts (nil: all defaults), or an error
// that names the option to fix.
func New(opts *Options) (*Agent, error) {
	if opts == nil {
		opts = &Options{}
	}
	a := &Agent{
		log:       opts.Logger,
		now:       opts.Now,
		transport: opts.Transport,
		publicURL: strings.TrimSuffix(opts.PublicURL, "/"),
		name:      opts.Name,
		idle:      opts.IdleTimeout,
		write:     opts.WriteTimeout,
		maxConns:  opts.MaxSessions,
		released:  opts.released,
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.now == nil {
		a.now = time.Now
	}
	if a.transport == "" {
		a.transport = protocol.TransportWebSocket
	}
	switch a.transport {
	case protocol.TransportWebSocket:
	case protocol.TransportWebRTC:
		rtc, err := newRTCConfig(opts)
		if err != nil {
			return nil, err
		}
		a.rtc = rtc
	default:
		return nil, fmt.Errorf("agent: transport %q is not supported; use %q or %q", a.transport, protocol.TransportWebSocket, protocol.TransportWebRTC)
	}
	if opts.PublicURL != "" {
		if err := CheckPublicURL(opts.PublicURL); err != nil {
			return nil, err
		}
	}
	cfg, err := modalityConfig(opts)
	if err != nil {
		return nil, err
	}
	a.cfg = cfg
	a.uri = protocol.ExtensionURI
	if opts.LegacyURI {
		a.uri = protocol.LegacyExtensionURI
	}
	if opts.Token != "" {
		sum := sha256.Sum256([]byte(opts.Token))
		a.tokenSum = &sum
	}
	if a.name == "" {
		a.name = DefaultName
	}
	if a.idle <= 0 {
		a.idle = DefaultIdleTimeout
	}
	if a.write <= 0 {
		a.write = DefaultWriteTimeout
	}
	if a.maxConns <= 0 {
		a.maxConns = DefaultMaxSessions
	}
	// The webrtc card says supportsExplicitTurns unless told not to.
	a.cfg.ExplicitTurns = a.rtc != nil && !opts.NoExplicitTurns
	a.ctx, a.cancel = context.WithCancel(context.Background())
	a.mux = http.NewServeMux()
	a.mux.HandleFunc("GET "+CardPath, a.serveCard)
	if a.rtc != nil {
		a.mux.HandleFunc(AGUIPath, a.serveSDP)
	} else {
		a.mux.HandleFunc(AGUIPath, a.serveAGUI)
	}
	return a, nil
}

// modalityConfig checks the modality options as ParseCard checks a card's
// lists, so that the agent never serves a card clients must refuse.
func modalityConfig(opts *Options) (protocol.SessionConfig, error) {
	var cfg protocol.SessionConfig
	if !opts.Physical {
		if len(opts.Accepted) > 0 || len(opts.AgentRequests) > 0 {
			return cfg, errors.New("agent: Accepted and AgentRequests need Physical (the reference agent is text-only unless the physical profile is asked for)")
		}
		return cfg, nil
	}
	both := []protocol.Modality{protocol.NFC, protocol.Photo}
	cfg.Accepted, cfg.AgentRequests = both, both
	if opts.Accepted != nil {
		cfg.Accepted = slices.Clone(opts.Accepted)
	}
	if opts.AgentRequests != nil {
		cfg.AgentRequests = slices.Clone(opts.AgentRequests)
	}
	for _, list := range []struct {
		name string
		ms   []protocol.Modality
	}{{"Accepted", cfg.Accepted}, {"AgentRequests", cfg.AgentRequests}} {
		if len(list.ms) > 2 {
			return cfg, fmt.Errorf("agent: %s lists %d modalities; at most two (nfc, photo)", list.name, len(list.ms))
		}
		for i, m := range list.ms {
			if m != protocol.NFC && m != protocol.Photo {
				return cfg, fmt.Errorf("agent: %s names %q; the modalities are nfc and photo", list.name, m)
			}
			if slices.Contains(list.ms[:i], m) {
				return cfg, fmt.Errorf("agent: %s names %s twice", list.name, m)
			}
		}
	}
	for _, m := range cfg.AgentRequests {
		if !slices.Contains(cfg.Accepted, m) {
			return cfg, fmt.Errorf("agent: AgentRequests names %s, which Accepted does not: every requested modality must be accepted", m)
		}
	}
	return cfg, nil
}

// CheckPublicURL reports whether s can be Options.PublicURL: an absolute
// http or https URL with a host and no user info, query or fragment.
func CheckPublicURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("agent: public URL does not parse; give one like https://agent.example")
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("agent: public URL must start with https:// (or http:// for local development)")
	case u.Host == "":
		return fmt.Errorf("agent: public URL has no host; give one like https://agent.example")
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Errorf("agent: public URL must be a plain base URL, without user info, query or fragment")
	}
	return nil
}

// ServeHTTP serves GET /.well-known/agent-card.json and the AG-UI
// WebSocket endpoint /agui.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) { a.mux.ServeHTTP(w, r) }

// Close ends every session (status 1001 "agent shutting down"), refuses new
// ones with 503 and waits until every connection's goroutine has returned.
// It is safe to call more than once.
func (a *Agent) Close() error {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	a.cancel()
	a.wg.Wait()
	return nil
}

// acquire registers one connection; it fails once closed or full.
func (a *Agent) acquire() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed {
		return ErrClosed
	}
	if a.conns >= a.maxConns {
		return fmt.Errorf("agent: %d sessions are open, the limit", a.conns)
	}
	a.conns++
	a.wg.Add(1)
	return nil
}

func (a *Agent) release() {
	a.mu.Lock()
	a.conns--
	a.mu.Unlock()
	if a.released != nil {
		a.released()
	}
	a.wg.Done()
}

// authorized checks "Authorization: Bearer TOKEN". Comparing SHA-256 sums
// in constant time hides both the token and its length from timing.
func (a *Agent) authorized(r *http.Request) bool {
	if a.tokenSum == nil {
		return true
	}
	h := r.Header.Get("Authorization")
	const prefix = "Bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return false
	}
	sum := sha256.Sum256([]byte(h[len(prefix):]))
	return subtle.ConstantTimeCompare(sum[:], a.tokenSum[:]) == 1
}

// baseURL is the public base URL, derived from the request when not
// configured.
func (a *Agent) baseURL(r *http.Request) string {
	if a.publicURL != "" {
		return a.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return (&url.URL{Scheme: scheme, Host: r.Host}).String()
}

// admit answers 401 to a request without the agent's bearer token and
// reports whether it may go on. Neither the header nor the token is
// logged: only that it failed.
func (a *Agent) admit(w http.ResponseWriter, r *http.Request) bool {
	if a.authorized(r) {
		return true
	}
	a.log.Info("agent: unauthorized AG-UI request", "remote", r.RemoteAddr)
	w.Header().Set("WWW-Authenticate", `Bearer realm="agentcall-agui"`)
	http.Error(w, "a bearer token is required: send Authorization: Bearer TOKEN", http.StatusUnauthorized)
	return false
}
