package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/datachannel"

	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
)

// Run and request order as the contract has it, against the real daemon
// over the WebSocket and WebRTC: a request outside any run is shown, a run
// completes while a request is pending, the person answers it with no run
// active and, later, while another turn's run is active; the agent resolves
// each and answers in a run of its own. The session is kept throughout.
func TestRunRequestOrder(t *testing.T) {
	for _, tr := range []string{"websocket", "webrtc"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			ag := &orderAgent{t: t}
			var addr string
			if tr == "websocket" {
				var srv *httptest.Server
				srv = httptest.NewServer(cardThen(func() string { return srv.URL }, "websocket", ag.serveWS))
				t.Cleanup(srv.Close)
				addr = strings.TrimPrefix(srv.URL, "http://")
			} else {
				f := clienttest.NewRTCFake(t)
				f.Script = ag.serveRTC
				addr = strings.TrimPrefix(f.Srv.URL, "http://")
			}
			d := startDaemon(t, t.TempDir(), addr)
			// A line is typed once the run before has completed ("agent
			// answered" is logged then): typed during a run, it is refused.
			d.wait(d.out, "agent asks: photo please", 1) // outside any run
			d.say("hello")
			d.wait(d.err, "agent answered", 1) // the run completed over the request
			d.press(keyP)                      // answers it, no run active
			d.wait(d.out, "agent: got the photo", 1)
			d.wait(d.err, "agent answered", 2)
			d.say("again")
			d.wait(d.out, "agent asks: photo again", 1)
			d.wait(d.err, "agent answered", 3)
			d.say("third")
			d.wait(d.out, "agent: working", 1)
			d.press(keyP) // answers it while the third turn's run is active
			d.wait(d.out, "agent: done", 1)
			if out := d.out.String(); strings.Contains(out, "[not connected") {
				t.Errorf("the session ended:\n%s", lastLines(out, 8))
			}
			if got := ag.answered(); strings.Join(got, ",") != "r1,r2" {
				t.Errorf("observations answered %q, want r1 then r2", got)
			}
		})
	}
}

// orderAgent plays the agent's side of TestRunRequestOrder on whichever
// transport the daemon dials.
type orderAgent struct {
	t  *testing.T
	mu sync.Mutex
	// ids of the requests the observations answered, in order
	answers []string
}

func (a *orderAgent) answered() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.answers...)
}

func (a *orderAgent) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.WSBinding}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(protocol.MaxFrameBytes) // a photo observation
	ctx, cancel := context.WithTimeout(r.Context(), time.Minute)
	defer cancel()
	var seq int64
	a.script(func(ev protocol.Event) error {
		seq++
		return clienttest.WriteEnv(ctx, c, seq, ev)
	}, func() *protocol.ClientMessage {
		frame, err := wsframe.Read(ctx, c)
		if err != nil {
			return nil
		}
		m, _ := protocol.ParseClientMessage(frame)
		return m
	})
}

func (a *orderAgent) serveRTC(ctx context.Context, raw datachannel.ReadWriteCloser) {
	var seq int64
	buf := make([]byte, protocol.MaxFrameBytes)
	a.script(func(ev protocol.Event) error {
		seq++
		env, _ := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: seq, Event: ev})
		_, err := raw.WriteDataChannel(env, true)
		return err
	}, func() *protocol.ClientMessage {
		n, _, err := raw.ReadDataChannel(buf)
		if err != nil {
			return nil
		}
		m, _ := protocol.ParseClientMessage(buf[:n])
		return m
	})
}

// script is the agent: each step waits for the client message it answers
// (skipping acks) and sends its events.
func (a *orderAgent) script(send func(protocol.Event) error, recv func() *protocol.ClientMessage) {
	next := func(typ string) *protocol.ClientMessage {
		for {
			m := recv()
			if m == nil {
				return nil
			}
			if m.Type == typ {
				return m
			}
			if m.Type != protocol.TypeAck {
				a.t.Errorf("the agent got %s, waiting for %s", m.Type, typ)
				return nil
			}
		}
	}
	sendAll := func(evs ...protocol.Event) bool {
		for _, ev := range evs {
			if send(ev) != nil {
				return false
			}
		}
		return true
	}
	request := func(id, prompt string) protocol.Event {
		return protocol.Event{Type: protocol.EventInteractionRequested, InteractionID: id, Kind: protocol.KindPhotoCapture, Prompt: prompt, SpokenPrompt: prompt}
	}
	started, completed := protocol.Event{Type: protocol.EventRunStarted}, protocol.Event{Type: protocol.EventRunCompleted}
	text := func(s string) protocol.Event { return protocol.Event{Type: protocol.EventTextDelta, Text: s} }
	resolved := func(id string) protocol.Event {
		return protocol.Event{Type: protocol.EventInteractionResolved, InteractionID: id, Outcome: protocol.OutcomeAnswered}
	}
	answer := func(want string) bool {
		m := next(protocol.TypeUserObservation)
		if m == nil {
			return false
		}
		a.mu.Lock()
		a.answers = append(a.answers, m.InteractionID)
		a.mu.Unlock()
		if m.InteractionID != want {
			a.t.Errorf("the observation answers %q, want %q", m.InteractionID, want)
		}
		return true
	}
	_ = next(protocol.TypeSessionStart) != nil &&
		sendAll(protocol.Event{Type: protocol.EventSessionEstablished}, request("r1", "photo please")) &&
		next(protocol.TypeUserTurn) != nil && sendAll(started, text("hi"), completed) &&
		answer("r1") && sendAll(resolved("r1"), started, text("got the photo"), completed) &&
		next(protocol.TypeUserTurn) != nil && sendAll(started, request("r2", "photo again"), text("ok"), completed) &&
		next(protocol.TypeUserTurn) != nil && sendAll(started, text("working")) &&
		answer("r2") && sendAll(resolved("r2"), text("done"), completed)
	for recv() != nil { // until the daemon goes
	}
}
