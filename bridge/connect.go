package bridge

import (
	"context"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/protocol"
)

// dialed is a session that reached session.established.
type dialed struct {
	ag   *client.Discovered
	s    *client.Session
	rtc  *client.WebRTCTransport
	mods []protocol.Modality // offered in session.start
}

// connect discovers the agent and starts a session on a goroutine of its
// own while this one keeps answering presses and typed lines: discovery and
// dialling can take seconds (15 s against an agent that accepts and never
// answers), and input left in the channel meanwhile would be acted on by the
// session that comes up — a press must be served now or refused now.
func (b *Bridge) connect(ctx context.Context) (*dialed, error) {
	type result struct {
		d   *dialed
		err error
	}
	ch := make(chan result, 1)
	go func() {
		d, err := b.dial(ctx)
		ch <- result{d, err}
	}()
	r := refuseUntil(b, ch)
	return r.d, r.err
}

// refuseUntil answers every press and typed line with a refusal until done
// delivers (or is closed), and returns what it delivered.
func refuseUntil[T any](b *Bridge, done <-chan T) T {
	texts := b.o.Texts
	for {
		select {
		case v := <-done:
			return v
		case ev := <-b.presses:
			b.refusePress(ev)
		case _, ok := <-texts:
			if !ok {
				texts = nil
				continue
			}
			b.refuseText()
		}
	}
}

// dial discovers the agent, opens the transport its card names and starts
// the session.
func (b *Bridge) dial(ctx context.Context) (*dialed, error) {
	ag, err := client.Discover(ctx, b.o.Agent.URL, b.o.Agent.Token, b.o.Agent.Network)
	if err != nil {
		return nil, err
	}
	d := &dialed{ag: ag}
	var t client.Transport
	opts := &client.Options{Modalities: b.present(), Logger: b.log, RunBudget: &b.o.Policy.RunBudget, Context: b.o.Context}
	if ag.Card.Params.AGUI.Transport == protocol.TransportWebRTC {
		wo := &client.WebRTCOptions{Logger: b.log.With("part", "webrtc"), ICEServers: b.o.Agent.ICEServers, RelayOnly: b.o.Agent.RelayOnly,
			OnReplyAudio: b.o.Metrics.replyWaited}
		if b.voiceIn != nil {
			wo.Sink, wo.NewDecoder = b.voiceIn, opusDecoder // not a typed nil: no speaker stays nil
		}
		mic := b.mic()
		if mic != nil { // likewise: a nil *audio.Mic would be a non-nil Microphone
			wo.Mic = mic
		}
		d.rtc, err = ag.DialWebRTC(ctx, wo)
		t = d.rtc
		if err == nil {
			opts.SessionID, opts.ExplicitTurns = d.rtc.SessionID(), mic != nil
		}
	} else {
		t, err = ag.Dial(ctx)
	}
	if err != nil {
		return nil, err
	}
	d.mods = opts.Modalities
	d.s, err = client.Start(ctx, t, ag.Card, opts)
	if err != nil {
		return nil, err
	}
	return d, nil
}

// stable reports whether a session that came up at up lasted long enough
// for the reconnect backoff to start over: an agent that drops every
// session at once must not get a connection a second.
func (b *Bridge) stable(up time.Time) bool {
	return !up.IsZero() && b.o.Now().Sub(up) >= b.o.Policy.StableAfter
}
