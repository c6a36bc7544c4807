package agent

// The WebRTC side of the reference agent (spec "WebSocket and WebRTC",
// profile agentcall-webrtc-0.1), with Options.Transport "webrtc".
//
// # Card
//
// The card says transport "webrtc", voice.owner "agent", resume and replay
// false, and carries the exact protocol.NewWebRTCProfile(true) object: the
// agent supports explicit audio turns (false with Options.NoExplicitTurns).
//
// # SDP endpoint
//
// POST /agui with Content-Type application/sdp, an AgentCall-Session-ID
// header (any non-empty HTTP field value, rtcpeer.ValidSessionID) and the
// bearer token when one is configured. The offer must carry every candidate (no trickle) and
// exactly one sendrecv audio section offering opus/48000/2 and one data
// channel section; nothing else. Answers:
//
//	201  application/sdp: the answer, with all of the agent's candidates
//	400  no or a malformed AgentCall-Session-ID, SDP that does not parse,
//	     or an offer outside the profile (the body says what)
//	401  missing or wrong bearer token
//	405  not POST (Allow: POST)
//	413  offer over 128 KiB
//	415  Content-Type not application/sdp
//	503  closing, or MaxSessions sessions open
//
// An offer under the AgentCall-Session-ID of a live session that names
// the same DTLS certificate as that session's first offer is an ICE
// restart: it is answered (201) on the session's peer connection.
//
// ICE host candidates are gathered only on the local address the offer
// arrived at, so an agent serving --insecure-local on 127.0.0.1 offers
// loopback candidates only; no STUN or TURN server is used and mDNS is off.
//
// # Session
//
// The client opens the data channel. The first channel must be labelled
// agentcall.events with subprotocol agentcall-agui-dc-0.1, ordered and
// reliable; any other channel, a second channel, a track that is not Opus
// 48 kHz or a second track ends the session (logged with the reason). A
// session whose channel does not open within 15 s is dropped. Frames then
// run through the same conversation as the WebSocket, with the same frame
// rules: a binary message, one over 131,072 bytes or one that is not UTF-8
// gets a failure (frame.binary, frame.size, frame.utf8), after which the
// agent closes the connection, as it does after session.end or a failure
// before session.start. A data channel has no close status; before the
// peer connection closes, what was sent (the failure envelope) is
// acknowledged by the client's SCTP stack and the channel closed by stream
// reset, waiting at most WriteTimeout or 1 s, whichever is shorter
// (rtcpeer.Close). Frames the client sent just before it closed the
// connection (session.end) are still read. ICE disconnection or failure
// ends the session (no resume); so do the idle timeout and Close.
//
// # Audio turns
//
// With explicit turns negotiated, Opus packets on the client's track are
// counted and decoded per turn, between an accepted audio.turn.start and
// its commit or cancel (the session rules validate all three). Packets
// outside a turn are counted and dropped. On audio.turn.commit and
// .cancel the agent waits for trailing packets (until 40 ms pass without
// one, at most 120 ms; a client that keeps sending silence after the
// commit has that much counted too); after a commit it then answers in a
// run:
//
//	run.started
//	text.delta "Heard N packets." ("Heard 1 packet." for one)
//	                  the reply voice plays on the agent's track, paced in real time
//	run.completed     after the reply's last packet
//
// response.cancel during the reply stops it and completes the run at once
// (as for any run). Each closed turn is logged with its packet count, loss,
// level and dominant frequency, and passed to Options.OnAudioTurn. Without
// explicit turns the agent receives audio but never answers it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

// SDP exchange names (spec "WebSocket and WebRTC").
const (
	SessionIDHeader = rtcpeer.SessionIDHeader
	SDPMediaType    = rtcpeer.SDPMediaType
)

// gatherTimeout bounds host candidate gathering for an answer.
const gatherTimeout = 5 * time.Second

// channelTimeout drops a session whose data channel never opens (a
// variable so that tests need not wait for it).
var channelTimeout = 15 * time.Second

// rtcConfig is what every WebRTC session of an Agent shares.
type rtcConfig struct {
	reply         []audio.Packet // the generated answer voice, encoded once
	onAudioTurn   func(AudioTurn)
	onAudioPacket func(turn int64)
	replyEnded    func(written int)
	onReply       func(at time.Time)
	noRestart     bool
	noNACK        bool

	mu   sync.Mutex
	live map[string]*rtcSession // by session id, for ICE restarts
}

func newRTCConfig(opts *Options) (*rtcConfig, error) {
	reply, err := audio.VoicePackets(opts.ReplyVoice, opts.ReplyEncoder)
	if err != nil {
		return nil, fmt.Errorf("agent: reply voice: %w", err)
	}
	return &rtcConfig{reply: reply, onAudioTurn: opts.OnAudioTurn, onAudioPacket: opts.OnAudioPacket, replyEnded: opts.replyEnded, onReply: opts.OnReply, noRestart: opts.NoICERestart, noNACK: opts.NoNACK}, nil
}

// webrtcProfile is the card's params.agui.webrtc, nil on WebSocket.
func (a *Agent) webrtcProfile() *protocol.WebRTC {
	if a.rtc == nil {
		return nil
	}
	return protocol.NewWebRTCProfile(a.cfg.ExplicitTurns)
}

// voiceOwner: the spec requires "agent" with webrtc; on WebSocket the
// client speaks the agent's texts.
func (a *Agent) voiceOwner() string {
	if a.rtc == nil {
		return "client"
	}
	return "agent"
}

// serveSDP answers one offer and starts its session. The session outlives
// the request: it runs on a goroutine of the Agent's, counted by
// acquire/release like a WebSocket connection.
func (a *Agent) serveSDP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "POST an SDP offer (Content-Type: application/sdp) to open an agentcall-webrtc-0.1 session", http.StatusMethodNotAllowed)
		return
	}
	if !a.admit(w, r) {
		return
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != SDPMediaType {
		http.Error(w, "the offer must be sent as Content-Type: application/sdp", http.StatusUnsupportedMediaType)
		return
	}
	sid := r.Header.Get(SessionIDHeader)
	if !rtcpeer.ValidSessionID(sid) {
		http.Error(w, "send an AgentCall-Session-ID header naming the session", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, protocol.MaxSDPBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, fmt.Sprintf("the offer is larger than %d bytes", protocol.MaxSDPBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the offer failed", http.StatusBadRequest)
		return
	}
	if err := checkOffer(string(body)); err != nil {
		a.log.Info("agent: offer refused", "remote", r.RemoteAddr, "reason", err)
		http.Error(w, "the offer is not "+protocol.WebRTCProfile+": "+err.Error(), http.StatusBadRequest)
		return
	}
	if s := a.rtc.restartable(sid, string(body)); s != nil {
		answer, err := s.restartICE(r.Context(), string(body))
		if err != nil {
			s.log.Warn("agent: no answer to an ICE restart", "err", err)
			http.Error(w, "the agent could not answer this ICE restart", http.StatusInternalServerError)
			return
		}
		writeAnswer(w, answer)
		return
	}
	if err := a.acquire(); err != nil {
		http.Error(w, "the agent is not accepting sessions now; retry later", http.StatusServiceUnavailable)
		return
	}
	s, answer, err := a.answer(r.Context(), string(body), sid, localIP(r), r.RemoteAddr)
	if err != nil {
		a.release()
		a.log.Warn("agent: no answer to an offer", "remote", r.RemoteAddr, "err", err)
		http.Error(w, "the agent could not answer this offer", http.StatusInternalServerError)
		return
	}
	writeAnswer(w, answer)
	a.rtc.register(s)
	go s.run()
}

func writeAnswer(w http.ResponseWriter, answer string) {
	w.Header().Set("Content-Type", SDPMediaType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusCreated)
	_, _ = io.WriteString(w, answer)
}

// localIP is the address the request arrived at, or nil if unknown.
func localIP(r *http.Request) net.IP {
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(*net.TCPAddr); ok {
		return addr.IP
	}
	return nil
}

// rtcAPI builds the pion API for one session: the profile's shared setup,
// with host candidates only on local, the address the offer arrived at.
func rtcAPI(local net.IP, noNACK bool, timing *rtcpeer.Timing) (*webrtc.API, error) {
	return rtcpeer.NewAPI(rtcpeer.APIOptions{NoNACK: noNACK, Timing: timing, Tune: func(s *webrtc.SettingEngine) {
		if local != nil {
			s.SetIncludeLoopbackCandidate(local.IsLoopback())
			s.SetIPFilter(func(ip net.IP) bool { return ip.Equal(local) })
		}
	}})
}

// answer creates the session's peer connection and returns its answer
// with every candidate gathered.
func (a *Agent) answer(ctx context.Context, offer, sid string, local net.IP, remote string) (*rtcSession, string, error) {
	timing := &rtcpeer.Timing{}
	api, err := rtcAPI(local, a.rtc.noNACK, timing)
	if err != nil {
		return nil, "", err
	}
	s, err := a.newRTCSession(api, sid, remote, timing)
	if err != nil {
		return nil, "", err
	}
	s.remoteFP = rtcpeer.Fingerprint(offer)
	fail := func(err error) (*rtcSession, string, error) {
		s.teardown()
		return nil, "", err
	}
	if err := s.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return fail(err)
	}
	// Added after the offer, the track joins the offer's audio transceiver,
	// which turns it sendrecv.
	sender, err := s.pc.AddTrack(s.track)
	if err != nil {
		return fail(err)
	}
	s.goOwned(func() { rtcpeer.DrainRTCP(sender) })
	ans, err := s.pc.CreateAnswer(nil)
	if err != nil {
		return fail(err)
	}
	gathered := webrtc.GatheringCompletePromise(s.pc)
	if err := s.pc.SetLocalDescription(ans); err != nil {
		return fail(err)
	}
	gctx, cancel := context.WithTimeout(ctx, gatherTimeout)
	defer cancel()
	select {
	case <-gathered:
	case <-gctx.Done():
		return fail(fmt.Errorf("gathering ICE candidates: %w", gctx.Err()))
	}
	return s, s.pc.LocalDescription().SDP, nil
}
