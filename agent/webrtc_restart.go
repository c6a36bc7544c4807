package agent

// ICE restart (spec "WebSocket and WebRTC": "ICE recovery does not create
// logical session resume"). A client whose path to the agent died (its
// address moved, a Wi-Fi roam) POSTs a new offer with fresh ICE
// credentials under the same AgentCall-Session-ID. The agent answers it on
// the session's existing peer connection when the offer names the same
// DTLS certificate as the session's first offer: the DTLS association, the
// data channel and the conversation carry on over the new pair. Any other
// offer under a live session's id opens a session of its own, as before.
//
// Meanwhile a session whose ICE went disconnected or failed is kept for
// iceGrace, long enough for the client to find a new path and restart;
// after that it ends as a lost connection.

import (
	"context"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/pion/webrtc/v4"
)

// iceGrace is how long a session outlives a dead ICE path waiting for the
// client's restart (a variable so that tests need not wait for it). It is
// above the client's restart window (client.DefaultICERestartWindow).
var iceGrace = 15 * time.Second

// register makes s reachable for restarts under its session id.
func (c *rtcConfig) register(s *rtcSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live == nil {
		c.live = make(map[string]*rtcSession)
	}
	c.live[s.sid] = s
}

// unregister forgets s (and only s: a later session may have taken its id).
func (c *rtcConfig) unregister(s *rtcSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.live[s.sid] == s {
		delete(c.live, s.sid)
	}
}

// restartable is the live session an offer restarts ICE for, or nil.
func (c *rtcConfig) restartable(sid, offer string) *rtcSession {
	if c.noRestart {
		return nil
	}
	c.mu.Lock()
	s := c.live[sid]
	c.mu.Unlock()
	if s == nil || s.life.Err() != nil {
		return nil
	}
	if fp := rtcpeer.Fingerprint(offer); fp == "" || fp != s.remoteFP {
		return nil
	}
	return s
}

// restartICE applies a restart offer to the session's peer connection and
// returns the answer with every new candidate gathered.
func (s *rtcSession) restartICE(ctx context.Context, offer string) (string, error) {
	s.restartMu.Lock()
	defer s.restartMu.Unlock()
	if err := s.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", err
	}
	ans, err := s.pc.CreateAnswer(nil)
	if err != nil {
		return "", err
	}
	gathered := webrtc.GatheringCompletePromise(s.pc)
	if err := s.pc.SetLocalDescription(ans); err != nil {
		return "", err
	}
	gctx, cancel := context.WithTimeout(ctx, gatherTimeout)
	defer cancel()
	select {
	case <-gathered:
	case <-gctx.Done():
		return "", fmt.Errorf("gathering ICE candidates: %w", gctx.Err())
	}
	s.log.Info("agent: ICE restart answered")
	return s.pc.LocalDescription().SDP, nil
}

// onICE keeps the session across a dead path for iceGrace.
func (s *rtcSession) onICE(st webrtc.ICEConnectionState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case webrtc.ICEConnectionStateDisconnected, webrtc.ICEConnectionStateFailed:
		if s.grace != nil || s.life.Err() != nil {
			return
		}
		s.lostAt = time.Now()
		s.log.Info("agent: ICE path lost; waiting for the client to restart ICE", "state", st.String(), "grace", iceGrace)
		s.grace = time.AfterFunc(iceGrace, func() {
			s.end(fmt.Errorf("agent: ICE %s and not restarted within %v", st, iceGrace))
		})
	case webrtc.ICEConnectionStateConnected, webrtc.ICEConnectionStateCompleted:
		if s.grace == nil {
			return
		}
		s.grace.Stop()
		s.grace = nil
		s.log.Info("agent: ICE path back", "after", time.Since(s.lostAt).Round(time.Millisecond))
	}
}

// stopGrace stops a pending grace timer at teardown.
func (s *rtcSession) stopGrace() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grace != nil {
		s.grace.Stop()
		s.grace = nil
	}
}
