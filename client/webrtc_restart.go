package client

// ICE restart (spec "WebSocket and WebRTC": "ICE recovery does not create
// logical session resume"). When the selected pair dies under an open
// session (the kiosk's address moved, the default route went to another
// link, a Wi-Fi roam), the kiosk offers again with fresh ICE credentials
// (pion's ICERestart), POSTed like the first offer under the same
// AgentCall-Session-ID, and applies the answer to the same peer
// connection: DTLS, the data channel and the session carry on over the new
// pair. An answer naming another DTLS certificate comes from an agent that
// opened a new peer connection instead, and ends the session: 0.1 has no
// resume. Until the window closes, a failed attempt (no route yet, the
// agent unreachable, no pair found) is tried again.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/internal/sdpcheck"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

// DefaultICERestartWindow is how long a session whose ICE path died keeps
// trying to restart ICE before it counts as lost. It is below the
// reference agent's wait for a restart (15 s).
const DefaultICERestartWindow = 10 * time.Second

// restartAttempt bounds one attempt: gathering, the POST, and the checks
// of the new pair. restartPause spaces attempts that failed at once (no
// route to the agent yet).
const (
	restartAttempt = 3 * time.Second
	restartPause   = 250 * time.Millisecond
)

// errNotRestarted says the agent answered a restart with another DTLS
// certificate: it opened a new peer connection, not the session's.
var errNotRestarted = errors.New("the agent answered the ICE restart with a new peer connection (another DTLS certificate); it does not support ICE restart")

// enableRestart arms ICE restart once the session's channel is open: post
// sends a restart offer the way the first one went.
// route reports whether the host has a route to the agent.
func (t *WebRTCTransport) enableRestart(window time.Duration, answerFP string, post func(context.Context, string) (string, error), route func() error) {
	t.restart.window, t.restart.fp, t.restart.post, t.restart.route = window, answerFP, post, route
	t.restart.up = make(chan struct{}, 1)
	t.peer.SetRecovery(t.onICE)
	if !t.iceUp() {
		// The path died between the channel's opening and now.
		t.onICE(webrtc.ICEConnectionStateDisconnected)
	}
	t.goOwned(t.watchLocalAddr)
}

// addrWatch is how often an open session checks that its pair's local
// address is still the host's. ICE alone notices a vanished address only
// when its disconnected timeout (5 s) passes without an answer; a kiosk
// whose address DHCP replaced, or whose route moved to another link,
// knows at once.
const addrWatch = 500 * time.Millisecond

// watchLocalAddr restarts ICE when the local address of the selected pair
// leaves the host, until the connection ends.
func (t *WebRTCTransport) watchLocalAddr() {
	tick := time.NewTicker(addrWatch)
	defer tick.Stop()
	for {
		select {
		case <-t.ctx.Done():
			return
		case <-tick.C:
		}
		if ip := t.localBase(); ip.IsValid() && !hostHas(ip) && !t.restart.active.Load() {
			t.log.Info("client: the ICE pair's local address left this host", "addr", ip.String())
			t.onICE(webrtc.ICEConnectionStateDisconnected)
		}
	}
}

// localBase is the host address the selected pair sends from: a host
// candidate's own, a server-reflexive one's base; invalid for a relay
// pair (its base is the connection to the TURN server) or none.
func (t *WebRTCTransport) localBase() netip.Addr {
	sctp := t.pc.SCTP()
	if sctp == nil {
		return netip.Addr{}
	}
	pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil || pair.Local == nil {
		return netip.Addr{}
	}
	addr := pair.Local.Address
	switch pair.Local.Typ {
	case webrtc.ICECandidateTypeHost:
	case webrtc.ICECandidateTypeSrflx:
		addr = pair.Local.RelatedAddress
	default:
		return netip.Addr{}
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return netip.Addr{}
	}
	// A link-local address may carry its interface's zone; the host's
	// list does not.
	return ip.Unmap().WithZone("")
}

// hostHas reports whether ip is one of the host's addresses (true when
// they cannot be listed: no restart on a guess).
func hostHas(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return true
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok {
			if got, ok := netip.AddrFromSlice(n.IP); ok && got.Unmap() == ip {
				return true
			}
		}
	}
	return false
}

// onICE starts one recovery when the path dies and tells it when a pair
// works again.
func (t *WebRTCTransport) onICE(st webrtc.ICEConnectionState) {
	switch st {
	case webrtc.ICEConnectionStateDisconnected, webrtc.ICEConnectionStateFailed:
		if t.restart.active.CompareAndSwap(false, true) {
			if !t.goOwned(func() { t.recoverPath(st) }) {
				t.restart.active.Store(false)
			}
		}
	case webrtc.ICEConnectionStateConnected, webrtc.ICEConnectionStateCompleted:
		select {
		case t.restart.up <- struct{}{}:
		default:
		}
	}
}

// recoverPath restarts ICE until a pair works or the window closes, then
// either lets the session carry on or ends it as lost.
func (t *WebRTCTransport) recoverPath(st webrtc.ICEConnectionState) {
	defer t.restart.active.Store(false)
	lost := time.Now()
	t.log.Info("client: ICE path lost; restarting ICE", "state", st.String(), "window", t.restart.window)
	ctx, cancel := context.WithTimeout(t.ctx, t.restart.window)
	defer cancel()
	var last error
	for attempt := 1; ; attempt++ {
		err := t.restartOnce(ctx)
		if err == nil {
			t.stats.restarts.Add(1)
			t.log.Info("client: ICE restarted; the session carries on over a new path",
				"attempts", attempt, "gap", time.Since(lost).Round(time.Millisecond), "remote", t.remoteCandidate())
			return
		}
		last = err
		// Refused outright, the agent's address answers but nothing
		// listens: the agent process is gone, and one that comes back has
		// no peer connection of this session.
		if errors.Is(err, errNotRestarted) || errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			break
		}
		t.log.Debug("client: ICE restart attempt failed", "attempt", attempt, "err", err)
		pause := time.NewTimer(restartPause)
		select {
		case <-pause.C:
		case <-ctx.Done():
		}
		pause.Stop()
		if ctx.Err() != nil {
			break
		}
	}
	if t.ctx.Err() != nil {
		return // closed meanwhile
	}
	t.end(fmt.Errorf("%w (ICE %s; ICE restart failed after %v: %v)", ErrConnectionLost, st, time.Since(lost).Round(time.Millisecond), last))
}

// restartOnce makes one restart offer, applies the answer and waits for a
// working pair.
func (t *WebRTCTransport) restartOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, restartAttempt)
	defer cancel()
	// A Connected from before this attempt says nothing about its pair.
	select {
	case <-t.restart.up:
	default:
	}
	if t.pc.SignalingState() != webrtc.SignalingStateHaveLocalOffer {
		// A host with no route to the agent (its address gone, the new
		// one not there yet) would offer no usable candidate: wait for the
		// route before restarting.
		if err := t.restart.route(); err != nil {
			return fmt.Errorf("no route to the agent yet: %w", err)
		}
		if err := t.offer(ctx, &webrtc.OfferOptions{ICERestart: true}); err != nil {
			return fmt.Errorf("ICE restart: %w", err)
		}
	}
	// Otherwise the previous attempt's offer got no answer; pion cannot
	// withdraw it (no local rollback), so it is sent again as it is.
	answer, err := t.restart.post(ctx, t.pc.LocalDescription().SDP)
	if err != nil {
		return err
	}
	if err := checkAnswer(answer); err != nil {
		return &incompatibleError{err}
	}
	if fp := rtcpeer.Fingerprint(answer); fp != t.restart.fp {
		return errNotRestarted
	}
	t.cands.checkAnswer(answer)
	answer = sdpcheck.ForPion(answer, protocol.MaxFrameBytes)
	if err := t.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		return fmt.Errorf("the restart answer was not accepted: %w", err)
	}
	select {
	case <-t.restart.up:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("no ICE pair works after the restart: %w", ctx.Err())
	}
}
