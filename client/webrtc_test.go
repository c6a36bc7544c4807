package client_test

import (
	"context"
	"errors"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/protocol"
)

// rtcAgent is the reference agent with transport webrtc on a real
// loopback HTTP listener, reached under the local-development policy.
type rtcAgent struct {
	*agent.Agent
	srv   *httptest.Server
	mu    sync.Mutex
	turns []agent.AudioTurn
}

func startRTCAgent(t testing.TB, opts *agent.Options) *rtcAgent {
	t.Helper()
	if opts == nil {
		opts = &agent.Options{}
	}
	ra := &rtcAgent{}
	opts.Transport = protocol.TransportWebRTC
	opts.OnAudioTurn = func(at agent.AudioTurn) {
		ra.mu.Lock()
		ra.turns = append(ra.turns, at)
		ra.mu.Unlock()
	}
	opts.Physical = true
	a, err := agent.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ra.Agent = a
	ra.srv = httptest.NewServer(ra.Agent)
	t.Cleanup(func() {
		ra.srv.Close()
		ra.Agent.Close()
	})
	return ra
}

func (ra *rtcAgent) audioTurns() []agent.AudioTurn {
	ra.mu.Lock()
	defer ra.mu.Unlock()
	return append([]agent.AudioTurn(nil), ra.turns...)
}

func discoverRTC(t testing.TB, ra *rtcAgent) *client.Discovered {
	t.Helper()
	ag, err := client.Discover(context.Background(), ra.srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ag.Card.Params.AGUI.Transport != protocol.TransportWebRTC || !ag.Card.ExplicitTurns() {
		t.Fatalf("card: %+v", ag.Card.Params.AGUI)
	}
	return ag
}

// pressedTurn starts a session with explicit turns against ra and opens
// its first audio turn, the state the turn tests start from.
// countingSink passes the agent's voice on and counts its samples.
type countingSink struct {
	w       client.Sink
	mu      sync.Mutex
	samples int
	wrote   chan struct{} // a token after each Write
}

func (c *countingSink) Write(pcm []int16) error {
	err := c.w.Write(pcm)
	c.mu.Lock()
	c.samples += len(pcm)
	c.mu.Unlock()
	select {
	case c.wrote <- struct{}{}:
	default:
	}
	return err
}

// wait waits up to 5 s until n samples were written: the reply's last
// packets may still be on their way when run.completed arrives on the
// other path.
func (c *countingSink) wait(n int) {
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		got := c.samples
		c.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-c.wrote:
		case <-deadline:
			return
		}
	}
}

func pressedTurn(t testing.TB, ra *rtcAgent) *clienttest.RTCTurns {
	t.Helper()
	rs := clienttest.StartRTCTurns(t, discoverRTC(t, ra), nil)
	if _, err := rs.PTT.Press(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rs
}

// The walkthrough replays clean, texts included, over the data
// channel: the session engine's rules run unchanged on WebRTC.
func TestWebRTCWalkthroughReplays(t *testing.T) {
	ra := startRTCAgent(t, nil)
	ag := discoverRTC(t, ra)
	ctx := context.Background()
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The reference agent's texts: every proposal names its label.
	r := conformance.Replay(ctx, tr, ag.Card, conformance.ReferenceWalkthrough(), &conformance.ReplayOptions{StrictText: true})
	if !r.Passed {
		t.Fatalf("diverged: %v", r.Divergence)
	}
}

// A push-to-talk turn of about a second from the audiotest microphone
// reaches the agent as Opus packets carrying the test tone, and the
// agent's reply is decoded into a WAV sink with its exact duration.
func TestWebRTCPushToTalk(t *testing.T) {
	heard := newPackets()
	ra := startRTCAgent(t, &agent.Options{OnAudioPacket: heard.heard})
	ag := discoverRTC(t, ra)
	ctx := context.Background()
	wavPath := filepath.Join(t.TempDir(), "reply.wav")
	wav, err := audio.CreateWAV(wavPath)
	if err != nil {
		t.Fatal(err)
	}
	// A cleanup, not a defer, so that the sink outlives the session.
	t.Cleanup(func() { wav.Close() })
	sink := &countingSink{w: wav, wrote: make(chan struct{}, 1)}
	waited := make(chan time.Duration, 2)
	rs := clienttest.StartRTCTurns(t, ag, &client.WebRTCOptions{SessionID: "ptt-1", Sink: sink,
		NewDecoder:   func() (client.Decoder, error) { return audio.NewDecoder() },
		OnReplyAudio: func(d time.Duration) { waited <- d }})
	mic, tr, s, ptt := rs.Mic, rs.Transport, rs.Session, rs.PTT
	if mic.Running() {
		t.Fatal("microphone open before any turn")
	}
	turn, err := ptt.Press(ctx)
	if err != nil || turn != 1 {
		t.Fatalf("press: turn %d, %v", turn, err)
	}
	if _, err := ptt.Press(ctx); !errors.Is(err, client.ErrTurnOpen) {
		t.Fatalf("second press: %v", err)
	}
	if !mic.Running() {
		t.Fatal("microphone not open during the turn")
	}
	heard.wait(t, 50) // a turn of a second
	if got, err := ptt.Release(ctx); err != nil || got != turn {
		t.Fatalf("release: turn %d, %v", got, err)
	}
	if mic.Running() {
		t.Fatal("microphone still open after release")
	}
	var texts []string
	for done := false; !done; {
		env := nextEvent(t, s)
		switch env.Event.Type {
		case protocol.EventTextDelta:
			texts = append(texts, env.Event.Text)
		case protocol.EventRunCompleted:
			done = true
		}
	}
	turns := ra.audioTurns()
	if len(turns) != 1 || !turns[0].Committed || turns[0].Turn != turn {
		t.Fatalf("agent saw turns %+v", turns)
	}
	at := turns[0]
	t.Logf("agent heard %+v", at)
	if at.Packets < 45 || at.DecodeErrors != 0 {
		t.Errorf("agent heard %d packets (%d undecodable); a 1 s turn is 50", at.Packets, at.DecodeErrors)
	}
	if db := audio.DBFS(at.Levels.RMS); db < -20 {
		t.Errorf("agent heard %.1f dBFS; the test tone is about -15", db)
	}
	if math.Abs(at.Levels.Dominant-audio.TestToneHz) > 3 {
		t.Errorf("agent heard %.1f Hz, want the test tone's %.0f", at.Levels.Dominant, audio.TestToneHz)
	}
	if want := "Heard " + strconv.Itoa(at.Packets) + " packets."; len(texts) != 1 || texts[0] != want {
		t.Errorf("texts %q, want %q", texts, want)
	}
	// The reply's last packets may still be on their way when
	// run.completed arrives on the other path.
	reply := audio.DefaultVoiceDuration
	sink.wait(int(reply * audio.SampleRate / time.Second))
	// The wait for the answer is reported once per release.
	select {
	case d := <-waited:
		t.Logf("release → first reply audio: %v", d)
	default:
		t.Error("no release → reply audio time reported")
	}
	if len(waited) != 0 {
		t.Error("more than one release → reply audio time for one release")
	}
	if err := s.End(ctx); err != nil {
		t.Fatal(err)
	}
	st := tr.Stats()
	if st.PacketsSent < 45 || st.PacketsLost != 0 || st.DecodeErrors != 0 {
		t.Errorf("stats %+v", st)
	}
	if err := wav.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(wavPath)
	if err != nil {
		t.Fatal(err)
	}
	w, err := audio.ParseWAV(b)
	if err != nil {
		t.Fatal(err)
	}
	if w.Duration() != reply {
		t.Errorf("WAV holds %v of the agent's voice, want %v", w.Duration(), reply)
	}
	if f := audio.DominantFrequency(w.Samples, audio.SampleRate); math.Abs(f-audio.DefaultVoicePitch) > 3 {
		t.Errorf("reply at %.1f Hz, want %.0f", f, audio.DefaultVoicePitch)
	}
}

// A cancelled turn is never answered; the microphone is closed and the
// next turn takes the next number.
func TestWebRTCCancelledTurn(t *testing.T) {
	heard := newPackets()
	ra := startRTCAgent(t, &agent.Options{OnAudioPacket: heard.heard})
	ctx := context.Background()
	rs := pressedTurn(t, ra)
	mic, s, ptt := rs.Mic, rs.Session, rs.PTT
	heard.wait(t, 10) // 200 ms of the turn
	if err := ptt.Cancel(ctx); err != nil {
		t.Fatal(err)
	}
	if mic.Running() {
		t.Fatal("microphone open after cancel")
	}
	if turn, err := s.Say(ctx, "hello"); err != nil || turn != 2 {
		t.Fatalf("text turn after a cancelled audio turn: %d %v", turn, err)
	}
	if env := nextEvent(t, s); env.Event.Type != protocol.EventRunStarted {
		t.Fatalf("got %+v", env)
	}
	turns := ra.audioTurns()
	if len(turns) != 1 || turns[0].Committed || turns[0].Turn != 1 {
		t.Fatalf("agent saw %+v", turns)
	}
}

// Without explicit turns negotiated, push-to-talk is refused locally.
func TestWebRTCPushToTalkNeedsExplicitTurns(t *testing.T) {
	ra := startRTCAgent(t, nil)
	ag := discoverRTC(t, ra)
	ctx := context.Background()
	tr, err := ag.DialWebRTC(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := client.NewPushToTalk(s, tr); !errors.Is(err, client.ErrNoExplicitTurns) {
		t.Fatalf("got %v", err)
	}
	if _, err := s.StartAudioTurn(ctx); protocol.Codes(err)[0] != protocol.CodeAudioTurn {
		t.Fatalf("audio.turn.start without negotiation: %v", err)
	}
	if err := tr.StartMic(ctx); !errors.Is(err, client.ErrNoMicrophone) {
		t.Fatalf("StartMic without a microphone: %v", err)
	}
}

// When the agent goes away mid-session, the session ends with
// ErrConnectionLost, and Close leaves no goroutine behind (TestMain's
// goleak check covers every test in the package).
func TestWebRTCAgentGoneEndsSession(t *testing.T) {
	ra := startRTCAgent(t, nil)
	ctx := context.Background()
	rs := pressedTurn(t, ra)
	mic, s, ptt := rs.Mic, rs.Session, rs.PTT
	ra.Agent.Close()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session still running after the agent closed")
	}
	if !errors.Is(s.Err(), client.ErrConnectionLost) {
		t.Fatalf("session ended with %v", s.Err())
	}
	if mic.Running() {
		t.Fatal("microphone left open after the connection was lost")
	}
	if _, err := ptt.Release(ctx); err == nil {
		t.Fatal("release after the session ended succeeded")
	}
}

// The offer carries host candidates on loopback only when the agent is on
// loopback (the local-development policy), and no others.
func TestWebRTCOfferHasLoopbackCandidatesOnly(t *testing.T) {
	var mu sync.Mutex
	var offer string
	fa := clienttest.NewRTCFake(t)
	fa.OnOffer = func(sdp string) string {
		mu.Lock()
		offer = sdp
		mu.Unlock()
		return sdp
	}
	tr, err := fa.Discover(t).Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
	mu.Lock()
	defer mu.Unlock()
	n := 0
	for _, line := range strings.Split(offer, "\n") {
		if !strings.HasPrefix(line, "a=candidate:") {
			continue
		}
		n++
		if f := strings.Fields(line); len(f) < 8 || !(f[4] == "127.0.0.1" || f[4] == "::1") || f[7] != "host" {
			t.Errorf("candidate %q", line)
		}
	}
	if n == 0 {
		t.Fatal("offer without candidates")
	}
}
