package clienttest

import (
	"context"
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
)

// RTCTurns is a WebRTC session with explicit audio turns negotiated and
// the audiotest microphone on its track, ready for push-to-talk.
type RTCTurns struct {
	Mic       *audio.Mic
	Transport *client.WebRTCTransport
	Session   *client.Session
	PTT       *client.PushToTalk
}

// StartRTCTurns opens the audiotest microphone, dials ag over WebRTC with
// it (o may set the rest of the options; its Mic is replaced) and starts a
// session with explicit turns under the transport's session id. The
// session and the microphone close in t.Cleanup; a test that checks for
// leaked goroutines before its cleanups run closes them itself (Close is
// safe twice on both).
func StartRTCTurns(t testing.TB, ag *client.Agent, o *client.WebRTCOptions) *RTCTurns {
	t.Helper()
	ctx := context.Background()
	mic, err := audio.OpenMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mic.Close() })
	opts := client.WebRTCOptions{}
	if o != nil {
		opts = *o
	}
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
	ptt, err := client.NewPushToTalk(s, tr)
	if err != nil {
		t.Fatal(err)
	}
	return &RTCTurns{Mic: mic, Transport: tr, Session: s, PTT: ptt}
}
