package agent

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

func startRTC(t testing.TB, opts *Options) *testAgent {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	opts.Transport = protocol.TransportWebRTC
	return startAgent(t, opts)
}

// The webrtc card is a valid 0.1 card with the exact profile, voice owned
// by the agent and explicit turns.
func TestWebRTCCard(t *testing.T) {
	ta := startRTC(t, nil)
	resp, err := http.Get(ta.srv.URL + CardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	card, err := protocol.ParseCard(raw)
	if err != nil {
		t.Fatal(err)
	}
	p := card.Params
	if p.AGUI.Transport != protocol.TransportWebRTC || p.Voice.Owner != "agent" || !p.AGUI.WebRTC.ExactProfile() || !card.ExplicitTurns() ||
		p.AGUI.URL != ta.srv.URL+AGUIPath || p.AGUI.Session == nil || p.AGUI.Session.Resume || p.AGUI.Session.Replay {
		t.Fatalf("params %+v", p)
	}
	want, _ := json.Marshal(protocol.NewWebRTCProfile(true))
	got, _ := json.Marshal(p.AGUI.WebRTC)
	if string(got) != string(want) {
		t.Fatalf("profile %s, want %s", got, want)
	}
}

// The SDP endpoint refuses everything outside the exchange the profile
// describes, with a status and a reason, and starts no session for it.
func TestWebRTCEndpointRefusals(t *testing.T) {
	ta := startRTC(t, &Options{Token: "tok"})
	_, good := newPeer(t, peerOptions{})
	auth := http.Header{"Authorization": {"Bearer tok"}}
	with := func(h http.Header, kv ...string) http.Header {
		out := h.Clone()
		if out == nil {
			out = http.Header{}
		}
		for i := 0; i < len(kv); i += 2 {
			out[http.CanonicalHeaderKey(kv[i])] = []string{kv[i+1]}
		}
		return out
	}
	offerWith := func(o peerOptions) string { _, s := newPeer(t, o); return s }
	pcmu := webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypePCMU, ClockRate: 8000}
	cases := []struct {
		name   string
		offer  string
		header http.Header
		status int
		reason string
	}{
		{"no token", good, nil, http.StatusUnauthorized, "bearer token"},
		{"wrong token", good, with(nil, "Authorization", "Bearer nope"), http.StatusUnauthorized, "bearer token"},
		{"JSON body", good, with(auth, "Content-Type", "application/json"), http.StatusUnsupportedMediaType, "application/sdp"},
		{"no session id", good, with(auth, "AgentCall-Session-ID", ""), http.StatusBadRequest, "AgentCall-Session-ID"},
		{"offer over 128 KiB", good + strings.Repeat("a=x-pad:"+strings.Repeat("p", 1000)+"\r\n", 140), auth, http.StatusRequestEntityTooLarge, "larger than"},
		{"not SDP", "hello", auth, http.StatusBadRequest, "does not parse"},
		{"PCMU only", offerWith(peerOptions{codec: &pcmu}), auth, http.StatusBadRequest, "opus/48000/2"},
		{"recvonly audio", offerWith(peerOptions{direction: webrtc.RTPTransceiverDirectionRecvonly}), auth, http.StatusBadRequest, "recvonly"},
		{"video", offerWith(peerOptions{video: true}), auth, http.StatusBadRequest, "video"},
		{"no data channel", offerWith(peerOptions{noChannel: true}), auth, http.StatusBadRequest, "0 data channel"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := postOffer(t, ta, c.offer, c.header)
			if resp.StatusCode != c.status || !strings.Contains(body, c.reason) {
				t.Fatalf("%s %q, want %d naming %q", resp.Status, body, c.status, c.reason)
			}
		})
	}
	resp, err := http.Get(ta.srv.URL + AGUIPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != "POST" {
		t.Fatalf("GET: %s, Allow %q", resp.Status, resp.Header.Get("Allow"))
	}
	if strings.Contains(ta.logs.String(), "offer accepted") {
		t.Fatal("a refused offer started a session")
	}
}

// The contract bounds a sessionId by nothing but its frame: the header that
// carries it over WebRTC is taken whatever its length and characters, as
// long as HTTP can carry it unchanged.
func TestWebRTCSessionIDAsTheContractAllows(t *testing.T) {
	ta := startRTC(t, nil)
	for _, sid := range []string{"a b", "kiosk-é-1", strings.Repeat("s", 4000)} {
		_, offer := newPeer(t, peerOptions{})
		resp, body := postOffer(t, ta, offer, http.Header{"Agentcall-Session-Id": {sid}})
		if resp.StatusCode != http.StatusCreated {
			t.Errorf("session id %.20q: %s %q", sid, resp.Status, body)
		}
	}
}

// A data channel outside the profile ends the session before anything is
// said on it.
func TestWebRTCChannelRefusals(t *testing.T) {
	zero := uint16(0)
	cases := []struct {
		name   string
		o      peerOptions
		reason string
	}{
		{"wrong label", peerOptions{label: "agentcall.event"}, "label"},
		{"wrong subprotocol", peerOptions{proto: "agentcall-agui-ws-0.1"}, "subprotocol"},
		{"unordered", peerOptions{unordered: true}, "unordered"},
		{"unreliable", peerOptions{maxRetransmits: &zero}, "reliable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ta := startRTC(t, nil)
			p := connect(t, ta, c.o)
			select {
			case <-p.gone:
			case <-time.After(ioTimeout):
				t.Fatal("the agent kept the connection")
			}
			if logs := ta.logs.String(); !strings.Contains(logs, "data channel refused") || !strings.Contains(logs, c.reason) {
				t.Fatalf("logs do not name the refusal:\n%s", logs)
			}
			if strings.Contains(ta.logs.String(), "session started") {
				t.Fatal("a session started on a refused channel")
			}
		})
	}
}

// A session whose channel never opens is dropped: here the client
// pre-negotiated it out of band, which the profile's agent never sees.
func TestWebRTCChannelTimeout(t *testing.T) {
	defer func(d time.Duration) { channelTimeout = d }(channelTimeout)
	channelTimeout = 300 * time.Millisecond
	ta := startRTC(t, nil)
	p := connect(t, ta, peerOptions{negotiated: true})
	select {
	case <-p.gone:
	case <-time.After(ioTimeout):
		t.Fatal("the agent kept a session without a channel")
	}
	if !strings.Contains(ta.logs.String(), "no data channel opened") {
		t.Fatalf("logs:\n%s", ta.logs.String())
	}
}

// The data channel has the WebSocket's frame rules: a failure naming the
// rule, then the agent closes the connection.
func TestWebRTCFrameRulesAgent(t *testing.T) {
	raise := func(sdp string) string {
		return regexp.MustCompile(`a=max-message-size:\d+`).ReplaceAllString(sdp, "a=max-message-size:1073741823")
	}
	big := `{"type":"user.turn","turn":1,"text":"` + strings.Repeat("a", protocol.MaxFrameBytes+1-len(`{"type":"user.turn","turn":1,"text":""}`)) + `"}`
	cases := []struct {
		name string
		msg  string
		text bool
		code string
	}{
		{"binary", `{"type":"user.turn","turn":1,"text":"hi"}`, false, protocol.CodeFrameBinary},
		{"131,073 bytes", big, true, protocol.CodeFrameSize},
		{"bad UTF-8", "{\"type\":\"user.turn\",\"turn\":1,\"text\":\"\xff\"}", true, protocol.CodeFrameUTF8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ta := startRTC(t, nil)
			p := connect(t, ta, peerOptions{answer: raise})
			p.start(false)
			p.write([]byte(c.msg), c.text)
			if ev := p.expect(protocol.EventFailure)[0].Event; ev.Code != c.code {
				t.Fatalf("failure %s, want %s", ev.Code, c.code)
			}
			p.expectGone()
		})
	}
	// A frame of exactly 131,072 bytes passes the frame rules and is a turn
	// like any other (the contract bounds the frame, not the text in it);
	// the session goes on.
	ta := startRTC(t, nil)
	p := connect(t, ta, peerOptions{answer: raise})
	p.start(false)
	exact := big[:len(big)-3] + `"}`
	if len(exact) != protocol.MaxFrameBytes {
		t.Fatalf("test frame is %d bytes", len(exact))
	}
	p.write([]byte(exact), true)
	p.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)
	p.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: 2, Text: "hello"})
	p.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)
}

// Explicit audio turns: the rules of protocol.Session, packets counted and
// decoded per turn, a run answering each commit with the reply voice.
func TestWebRTCAudioTurns(t *testing.T) {
	var mu sync.Mutex
	var turns []AudioTurn
	inTurn := make(chan int64, 64) // the turn of each client packet
	ta := startRTC(t, &Options{OnAudioTurn: func(at AudioTurn) { mu.Lock(); turns = append(turns, at); mu.Unlock() },
		OnAudioPacket: func(turn int64) {
			select {
			case inTurn <- turn:
			default:
			}
		}})
	p := connect(t, ta, peerOptions{})
	p.start(true)
	ctx := context.Background()
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnCommit, Turn: 1})
	p.expect(protocol.EventFailure)
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnStart, Turn: 1})
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnStart, Turn: 2})
	if ev := p.expect(protocol.EventFailure)[0].Event; ev.Code != protocol.CodeAudioTurn {
		t.Fatalf("second open turn: %s", ev.Code)
	}
	p.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: 2, Text: "hello"})
	if ev := p.expect(protocol.EventFailure)[0].Event; ev.Code != protocol.CodeAudioTurn {
		t.Fatalf("text turn during an audio turn: %s", ev.Code)
	}
	speech, err := audio.VoicePackets(&audio.VoiceOptions{Pitch: 300, Duration: 500 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.speak(ctx, speech)
	// An exact count below: the commit goes once the agent's RTP reader
	// has taken all 25 packets.
	for got := 0; got < 25; {
		select {
		case turn := <-inTurn:
			if turn == 1 {
				got++
			}
		case <-time.After(ioTimeout):
			t.Fatalf("the agent heard %d of 25 packets", got)
		}
	}
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnCommit, Turn: 1})
	evs := p.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)
	check(t, evs[1].Event.Text, "Heard 25 packets.")
	mu.Lock()
	at := turns[0]
	mu.Unlock()
	if !at.Committed || at.Turn != 1 || at.Packets != 25 || at.Lost != 0 || at.DecodeErrors != 0 || math.Abs(at.Levels.Dominant-300) > 3 {
		t.Fatalf("agent's turn %+v", at)
	}
	// The reply voice: 600 ms at 440 Hz, sent before run.completed.
	p.waitVoice(30)
	n, pcm := p.voice()
	if n != 30 || len(pcm) != 30*audio.FrameSamples || math.Abs(audio.DominantFrequency(pcm, audio.SampleRate)-audio.DefaultVoicePitch) > 3 {
		t.Fatalf("reply: %d packets, %d samples", n, len(pcm))
	}
	// A cancelled turn gets no run, and turn numbers go on.
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnStart, Turn: 3})
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnCancel, Turn: 3})
	p.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: 4, Text: "hello"})
	p.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)
	mu.Lock()
	defer mu.Unlock()
	if len(turns) != 2 || turns[1].Committed || turns[1].Turn != 3 {
		t.Fatalf("turns %+v", turns)
	}
}

// response.cancel during the reply stops the voice and completes the run
// at once.
func TestWebRTCCancelStopsReply(t *testing.T) {
	ended := make(chan int, 1)
	ta := startRTC(t, &Options{ReplyVoice: &audio.VoiceOptions{Duration: 5 * time.Second}, replyEnded: func(n int) {
		select {
		case ended <- n:
		default: // only the first reply is checked
		}
	}})
	p := connect(t, ta, peerOptions{})
	p.start(true)
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnStart, Turn: 1})
	p.send(&protocol.ClientMessage{Type: protocol.TypeAudioTurnCommit, Turn: 1})
	check(t, p.expect(protocol.EventRunStarted, protocol.EventTextDelta)[1].Event.Text, "Heard 0 packets.")
	p.waitVoice(10) // 200 ms of the reply
	start := time.Now()
	p.send(&protocol.ClientMessage{Type: protocol.TypeResponseCancel})
	p.expect(protocol.EventRunCompleted)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("run.completed %v after the cancel", d)
	}
	// The reply's writer returns at the cancel, having written a fraction
	// of the reply: nothing of it can follow.
	select {
	case n := <-ended:
		if got, _ := p.voice(); got == 0 || n > 50 {
			t.Fatalf("%d reply packets written (%d heard) for a cancel 200 ms in; the whole reply is 250", n, got)
		}
	case <-time.After(time.Second):
		t.Fatal("the reply voice went on after the cancel")
	}
}

// The walkthrough's own ending: session.end closes the connection, and
// Close ends sessions still open (goleak in TestMain).
func TestWebRTCSessionEndAndClose(t *testing.T) {
	ta := startRTC(t, nil)
	p := connect(t, ta, peerOptions{})
	p.start(false)
	p.send(&protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	p.expectGone()
	q := connect(t, ta, peerOptions{})
	q.start(false)
	ta.Close()
	q.expectGone()
	_, offer := newPeer(t, peerOptions{})
	if resp, _ := postOffer(t, ta, offer, nil); resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("offer after Close: %s", resp.Status)
	}
}
