package clienttest

import (
	"context"
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
)

// RTCTurns is a WebRTC session with the audiotest microphone on its
// track; with explicit audio turns negotiated, ready for push-to-talk.
type RTCTurns struct {
	Mic       *audio.Mic
	Transport *client.WebRTCTransport
	Session   *client.Session
	PTT       *client.PushToTalk // nil without explicit turns
}

// StartRTCTurns opens the audiotest microphone, dials ag over WebRTC with
// it (o may set the rest of the options, and an *audio.Mic to use
// instead, which then also closes in t.Cleanup) and starts a
// session with explicit turns under the transport's session id. The
// session and the microphone close in t.Cleanup; a test that checks for
// leaked goroutines before its cleanups run closes them itself (Close is
// safe twice on both).
func StartRTCTurns(t testing.TB, ag *client.Discovered, o *client.WebRTCOptions) *RTCTurns {
	t.Helper()
	rs := StartRTC(t, ag, o)
	if rs.PTT == nil {
		t.Fatal("explicit audio turns were not negotiated: the agent's card lacks supportsExplicitTurns")
	}
	return rs
}

// StartRTC is StartRTCTurns for any card: the session offers explicit
// turns, and PTT is nil when the card does not allow them.
func StartRTC(t testing.TB, ag *client.Discovered, o *client.WebRTCOptions) *RTCTurns {
	t.Helper()
	ctx := context.Background()
	opts := client.WebRTCOptions{}
	if o != nil {
		opts = *o
	}
	mic, ok := opts.Mic.(*audio.Mic)
	if !ok || mic == nil {
		var err error
		if mic, err = audio.NewMic(&audio.MicOptions{Device: audio.TestDevice}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { mic.Close() })
	opts.Mic = mic
	tr, err := ag.DialWebRTC(ctx, &opts)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID(), ExplicitTurns: true})
	if err != nil {
		tr.Close(nil)
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	rs := &RTCTurns{Mic: mic, Transport: tr, Session: s}
	if s.ExplicitTurns() {
		if rs.PTT, err = client.NewPushToTalk(s, tr); err != nil {
			t.Fatal(err)
		}
	}
	return rs
}
