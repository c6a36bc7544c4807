package agent

import (
	"net/http"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

// A restart offer (fresh ICE credentials, the same DTLS certificate, the
// same session id) is answered on the session's own peer connection: the
// answer keeps the agent's certificate and the conversation carries on
// over the restarted ICE. An offer from another peer under that id opens
// a session of its own instead.
func TestWebRTCICERestart(t *testing.T) {
	ta := startRTC(t, nil)
	p := connect(t, ta, peerOptions{})
	p.start(false)
	first := rtcpeer.Fingerprint(p.pc.RemoteDescription().SDP)

	offer, err := p.pc.CreateOffer(&webrtc.OfferOptions{ICERestart: true})
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(p.pc)
	if err := p.pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	select {
	case <-gathered:
	case <-time.After(ioTimeout):
		t.Fatal("no candidates for the restart offer")
	}
	resp, answer := postOffer(t, ta, p.pc.LocalDescription().SDP, nil)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("restart offer answered %s: %s", resp.Status, answer)
	}
	if got := rtcpeer.Fingerprint(answer); got == "" || got != first {
		t.Fatalf("the restart answer names certificate %q, the session's is %q", got, first)
	}
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		t.Fatal(err)
	}
	p.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: 1, Text: "hello"})
	p.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)

	// Another peer under the same id is not the session's.
	q, other := newPeer(t, peerOptions{})
	resp, answer = postOffer(t, ta, other, nil)
	if resp.StatusCode != http.StatusCreated || rtcpeer.Fingerprint(answer) == first {
		t.Fatalf("another peer's offer: %s, certificate %q (the first session's %q)", resp.Status, rtcpeer.Fingerprint(answer), first)
	}
	q.close()
}
