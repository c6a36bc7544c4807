package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/transport/v5/stdnet"
	"github.com/pion/webrtc/v4"
)

// The SDP exchange of agentcall-webrtc-0.1 (spec "WebSocket and WebRTC"):
// the offer is POSTed as application/sdp to the card's AG-UI URL with these
// headers, and the answer comes back with the same media type.
const (
	SessionIDHeader = rtcpeer.SessionIDHeader
	SDPMediaType    = rtcpeer.SDPMediaType
)

// DefaultICEDisconnectedTimeout is how long the agent may stay silent (no
// media, no ICE consent answer) before the path counts as dead: the kiosk
// then restarts ICE (see WebRTCOptions.NoICERestart), and the session ends
// when that fails. It is pion's default, stated because it decides how
// fast a vanished agent or a moved address is noticed.
const DefaultICEDisconnectedTimeout = 5 * time.Second

// iceFailedTimeout only matters for pion's own bookkeeping: the session
// is restarted, or ends, from Disconnected on.
const iceFailedTimeout = 25 * time.Second

// ErrConnectionLost is why Recv fails when the WebRTC connection ends under
// the session (ICE disconnected or failed, the agent closed it): the logical
// session has ended, since 0.1 has no resume. The error Recv returns wraps
// it with the reason.
var ErrConnectionLost = errors.New("client: the WebRTC connection to the agent was lost; the session has ended (0.1 has no resume)")

// ErrNoMicrophone is returned by StartMic on a transport dialed without a
// microphone.
var ErrNoMicrophone = errors.New("client: this WebRTC transport has no microphone (set WebRTCOptions.Mic)")

// ICEServer is a STUN or TURN server for ICE gathering. None is configured
// by default: a kiosk reaching a public agent directly needs none, and on
// loopback none is wanted. An operator behind a restrictive NAT adds one
// through WebRTCOptions.ICEServers (a configuration key can map onto it
// one to one), e.g. {URLs: ["stun:stun.example.net:3478"]} or
// {URLs: ["turns:turn.example.net:5349"], Username: "kiosk", Credential: "..."}.
// Server host names are resolved by pion outside the Policy's address
// checks; list only servers you trust.
type ICEServer struct {
	URLs       []string
	Username   string
	Credential string
}

// WebRTCOptions configure a WebRTC transport. nil or a zero field means the
// documented default.
type WebRTCOptions struct {
	// SessionID goes in the AgentCall-Session-ID header. Pass the same value
	// as Options.SessionID to Start so that both name one session. Default:
	// 16 random hex characters (read it back with SessionID).
	SessionID string
	// Mic is the microphone whose Opus packets go on the audio track while
	// it runs (StartMic .. StopMic). The caller opens and closes it; the
	// transport stops it when the connection ends. nil: the track stays
	// silent (replay, conformance runs). *audio.Mic implements it.
	Mic Microphone
	// Sink receives the agent's voice, decoded to 48 kHz mono PCM by a
	// Decoder from NewDecoder. The caller owns it (the transport never
	// closes it). nil: the agent's packets are received and dropped.
	Sink Sink
	// NewDecoder makes the Opus decoder of the agent's track; required
	// with a Sink. Package audio has one (wrap audio.NewDecoder); this
	// package decodes nothing itself, so that it builds without cgo.
	NewDecoder func() (Decoder, error)
	// ICEServers for gathering; none by default (see ICEServer).
	ICEServers []ICEServer
	// RelayOnly gathers relay candidates only (pion's ICE transport policy
	// "relay"): the agent's audio then always goes through a TURN server of
	// ICEServers, e.g. where the site's policy forbids direct UDP.
	RelayOnly bool
	// ICEDisconnectedTimeout: default DefaultICEDisconnectedTimeout.
	ICEDisconnectedTimeout time.Duration
	// NoICERestart ends the session when its ICE path dies, as before ICE
	// restart existed (and as an agent without it forces anyway). Default:
	// the kiosk restarts ICE over the SDP endpoint for ICERestartWindow.
	NoICERestart bool
	// NoNACK neither asks for the agent's lost voice packets nor resends
	// the microphone's, and holds no gap open for one (to measure what NACK
	// recovers). Default: NACK both ways where the agent answers it.
	NoNACK bool
	// ICERestartWindow: default DefaultICERestartWindow.
	ICERestartWindow time.Duration
	// OnReplyAudio, if set, is told the time from a push-to-talk release
	// (PushToTalk.Release) to the first agent audio handed to the Sink
	// after it: what a visitor waits for an answer. It runs on the
	// playback goroutine and must not block.
	OnReplyAudio func(time.Duration)
	// Logger receives connection state changes and counts, never frames or
	// audio. Default: discard.
	Logger *slog.Logger
}

func (o *WebRTCOptions) orDefault() (WebRTCOptions, error) {
	q := WebRTCOptions{}
	if o != nil {
		q = *o
	}
	if q.SessionID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		q.SessionID = hex.EncodeToString(b[:])
	}
	if q.Sink != nil && q.NewDecoder == nil {
		return q, fmt.Errorf("client: WebRTCOptions.Sink needs NewDecoder to decode the agent's Opus (e.g. audio.NewDecoder)")
	}
	if !rtcpeer.ValidSessionID(q.SessionID) {
		return q, fmt.Errorf("client: session id must be a valid HTTP header value (no control characters, no space at either end)")
	}
	if q.ICEDisconnectedTimeout <= 0 {
		q.ICEDisconnectedTimeout = DefaultICEDisconnectedTimeout
	}
	if q.ICERestartWindow <= 0 {
		q.ICERestartWindow = DefaultICERestartWindow
	}
	if q.Logger == nil {
		q.Logger = slog.New(slog.DiscardHandler)
	}
	return q, nil
}

// DialWebRTC opens the agentcall-webrtc-0.1 transport: one sendrecv Opus
// track and the ordered, reliable data channel agentcall.events with
// subprotocol agentcall-agui-dc-0.1. The offer (all candidates gathered,
// no trickle) is POSTed to the card's AG-UI URL under the agent's network
// policy: the host checked and pinned, the bearer token only to the card's
// origin, no redirects, the policy's timeouts. An answer that is not
// application/sdp, exceeds 128 KiB or negotiates anything but the exact
// profile is refused (ErrIncompatible). DialWebRTC returns once the data
// channel is open; the whole exchange is bounded by Policy.TotalTimeout.
func (a *Discovered) DialWebRTC(ctx context.Context, opts *WebRTCOptions) (_ *WebRTCTransport, err error) {
	defer func() { err = a.redact(err) }()
	if a.Card.Params.AGUI.Transport != protocol.TransportWebRTC || !a.Card.Params.AGUI.WebRTC.ExactProfile() {
		return nil, &incompatibleError{fmt.Errorf("the card does not offer the exact %s profile", protocol.WebRTCProfile)}
	}
	o, err := opts.orDefault()
	if err != nil {
		return nil, err
	}
	p := a.policy
	tgt, err := p.resolve(ctx, a.AGUI)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, p.TotalTimeout)
	defer cancel()
	cands := newCandidateLog(p)
	// The host's interfaces, read again before an ICE restart: pion reads
	// them once, so a restart would gather on an address that is gone.
	ifs, err := stdnet.NewNet()
	if err != nil {
		return nil, fmt.Errorf("client: listing network interfaces: %w", err)
	}
	timing := &rtcpeer.Timing{}
	api, err := newWebRTCAPI(tgt.addr.Addr(), cands, &o, ifs, timing)
	if err != nil {
		return nil, err
	}
	t, err := newWebRTCTransport(api, &o, cands, timing)
	if err != nil {
		return nil, err
	}
	began := time.Now()
	post := func(ctx context.Context, offer string) (string, error) {
		return a.postOffer(ctx, tgt, offer, o.SessionID)
	}
	if err := t.connect(dctx, ctx, post); err != nil {
		t.Close(nil)
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("client: the WebRTC connection to %s was not up within %v: %w", a.Origin, p.TotalTimeout, err)
		}
		return nil, err
	}
	t.setup = time.Since(began)
	if !o.NoICERestart {
		t.enableRestart(o.ICERestartWindow, rtcpeer.Fingerprint(t.pc.RemoteDescription().SDP), func(ctx context.Context, offer string) (string, error) {
			// The restart's own POST is held to the dial's rules, against
			// the agent's address as resolved at the dial.
			answer, err := post(ctx, offer)
			return answer, a.redact(err)
		}, func() error {
			if err := ifs.UpdateInterfaces(); err != nil {
				return err
			}
			// Connecting a UDP socket sends nothing: it only looks up the
			// route.
			c, err := net.Dial("udp", tgt.addr.String())
			if err == nil {
				c.Close()
			}
			return err
		})
	}
	return t, nil
}

// newWebRTCAPI builds a pion API for one connection: the profile's shared
// setup, with ICE held to the policy: only host candidates on loopback when
// the agent is on loopback (the local-development policy), and remote
// candidates only at addresses the policy would allow an HTTPS connection
// to (see candidateLog.allow).
func newWebRTCAPI(remote netip.Addr, cands *candidateLog, o *WebRTCOptions, ifs *stdnet.Net, timing *rtcpeer.Timing) (*webrtc.API, error) {
	api, err := rtcpeer.NewAPI(rtcpeer.APIOptions{NoNACK: o.NoNACK, Timing: timing, Tune: func(s *webrtc.SettingEngine) {
		s.SetNet(ifs)
		s.SetICETimeouts(o.ICEDisconnectedTimeout, max(iceFailedTimeout, 2*o.ICEDisconnectedTimeout), min(2*time.Second, o.ICEDisconnectedTimeout/3))
		if remote.IsLoopback() {
			s.SetIncludeLoopbackCandidate(true)
			s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
		}
		s.SetRemoteIPFilter(cands.allow)
		if o.RelayOnly {
			// No direct pair can succeed meanwhile: nominate at once.
			s.SetRelayAcceptanceMinWait(0)
		}
	}})
	if err != nil {
		return nil, fmt.Errorf("client: %w", err)
	}
	return api, nil
}

// postOffer sends the offer and returns the answer's SDP, refusing
// redirects, other media types and oversize bodies.
func (a *Discovered) postOffer(ctx context.Context, tgt *target, offer, sessionID string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.AGUI.String(), strings.NewReader(offer))
	if err != nil {
		return "", fmt.Errorf("client: SDP request: %w", err)
	}
	req.Header = a.authHeader(a.AGUI)
	req.Header.Set("Content-Type", SDPMediaType)
	req.Header.Set("Accept", SDPMediaType)
	req.Header.Set(SessionIDHeader, sessionID)
	hc := a.policy.httpClient(tgt)
	defer hc.CloseIdleConnections()
	resp, err := hc.Do(req)
	if err != nil {
		return "", fmt.Errorf("client: sending the SDP offer to %s: %w", origin(a.AGUI), err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return "", refuse("the SDP offer was redirected (HTTP %d); redirects are not followed", resp.StatusCode)
	case resp.StatusCode == http.StatusUnauthorized:
		return "", fmt.Errorf("client: the agent refused the bearer token (HTTP 401): check the token file")
	case resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated:
		return "", fmt.Errorf("client: the agent refused the SDP offer: HTTP %d%s", resp.StatusCode, reasonOf(resp.Body))
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != SDPMediaType {
		return "", &incompatibleError{fmt.Errorf("the SDP answer has content type %q, not %s", clipASCII(resp.Header.Get("Content-Type"), 64), SDPMediaType)}
	}
	if resp.ContentLength > protocol.MaxSDPBytes {
		return "", &incompatibleError{fmt.Errorf("the SDP answer is %d bytes; the limit is %d", resp.ContentLength, protocol.MaxSDPBytes)}
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, protocol.MaxSDPBytes+1))
	if err != nil {
		return "", fmt.Errorf("client: reading the SDP answer: %w", err)
	}
	if len(raw) > protocol.MaxSDPBytes {
		return "", &incompatibleError{fmt.Errorf("the SDP answer is larger than %d bytes", protocol.MaxSDPBytes)}
	}
	return string(raw), nil
}

// reasonOf returns the start of an error body, printable ASCII only, for
// an operator reading why the agent refused: agents state the fix there.
func reasonOf(r io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(r, 512))
	s := strings.TrimSpace(clipASCII(string(b), 200))
	if s == "" {
		return ""
	}
	return ": " + s
}

func clipASCII(s string, n int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= n {
			b.WriteString("…")
			break
		}
		if r >= 0x20 && r < 0x7f {
			b.WriteRune(r)
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}
