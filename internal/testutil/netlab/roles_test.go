package netlab_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/internal/testutil/netlab"
	"github.com/agentcall/acbridge/protocol"
)

// The test binary plays the agent and the kiosk in the lab's namespaces:
// re-run with roleEnv set, it serves or dials instead of testing.
const (
	roleEnv = "ACBRIDGE_NETLAB_ROLE"
	argsEnv = "ACBRIDGE_NETLAB_ARGS"
)

func TestMain(m *testing.M) {
	switch os.Getenv(roleEnv) {
	case "agent":
		os.Exit(agentRole())
	case "kiosk":
		os.Exit(kioskRole())
	}
	os.Exit(m.Run())
}

// agentArgs configure the agent role.
type agentArgs struct {
	Listen, Cert, Key string
	NoFEC             bool // the reply voice encoded without in-band FEC
	NoICERestart      bool // every offer opens a session of its own
	NoNACK            bool // no retransmission asked for or given
}

// agentRole serves the reference WebRTC agent over TLS, says where on
// stderr ("listening on URL") and writes each audio turn it heard as a
// JSON line ("turn {...}").
func agentRole() int {
	var a agentArgs
	if err := json.Unmarshal([]byte(os.Getenv(argsEnv)), &a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ag, err := agent.New(&agent.Options{Transport: "webrtc", Physical: true, ReplyEncoder: &audio.EncoderOptions{NoFEC: a.NoFEC}, NoICERestart: a.NoICERestart, NoNACK: a.NoNACK, OnAudioTurn: func(at agent.AudioTurn) {
		b, _ := json.Marshal(at)
		fmt.Fprintf(os.Stderr, "turn %s\n", b)
	}, OnReply: func(at time.Time) {
		fmt.Fprintf(os.Stderr, "%s%s\n", replyPrefix, at.Format(time.RFC3339Nano))
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ln, err := net.Listen("tcp", a.Listen)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "listening on https://%s\n", ln.Addr())
	err = http.ServeTLS(ln, ag, a.Cert, a.Key)
	fmt.Fprintln(os.Stderr, err)
	return 1
}

// kioskArgs configure the kiosk role.
type kioskArgs struct {
	URL, CAFile string
	Replays     int // walkthrough replays, each on a connection of its own
	Turns       int // push-to-talk turns of about a second, on one more connection
	ICEServers  []client.ICEServer
	Relay       bool
	// TotalTimeout is the policy's (default 15 s).
	TotalTimeout time.Duration
	// TrustFile, if set, is the kiosk's system CA bundle (SSL_CERT_FILE):
	// pion checks a TURN server's certificate against the system's roots.
	TrustFile string
	// MoveTo, if set, makes the run a roam instead (see roam): one turn,
	// the kiosk's address replaced by this one, one more turn.
	MoveTo       string
	NoICERestart bool
	// NoFEC encodes the microphone without in-band FEC.
	NoFEC bool
	// ToneHz, if set, adds a last turn in which the microphone hears a
	// tone at this frequency instead of speech.
	ToneHz float64
	NoNACK bool // no retransmission asked for or given
	// Delay adds a turn of tone bursts after a silence (delayTurn), whose
	// onsets measure the mouth-to-ear delay to the agent.
	Delay bool
	// SpeechWAV, if set, is a 48 kHz mono WAV of a spoken sentence said
	// in one more turn (speechTurn).
	SpeechWAV string
}

// kioskResult is what the kiosk role measured.
type kioskResult struct {
	SetupMs     []float64 // dial (card known) to data channel open
	ReplayMs    []float64 // the walkthrough's 69 steps, per replay that passed
	ReplayFails []string
	MicSent     int64   // microphone packets put on the track
	ReplyRecv   int64   // agent packets received
	ReplyLost   int64   // agent packets missing (sequence gaps)
	Recovered   int64   // of those, frames recovered from in-band FEC
	WithFEC     int64   // agent packets carrying an FEC copy
	Concealed   int64   // and frames the decoder extrapolated
	Late        int64   // agent packets that filled a gap held open for them (resent after a NACK)
	JitterMs    float64 // of the agent's RTP, at the end
	RTTMs       float64 // from RTCP, at the end
	PlayedMs    float64
	Lasting     []string // the health code of each dial error client.Lasting knows
	// A roam's: the address move to the restart's end, and restarts seen.
	RecoveredMs float64
	Restarts    int64
	// SCTPGiveUps is filled in by kioskIn from the kiosk's log.
	SCTPGiveUps int
	// The push-to-talk connection's: when its dial began, the onsets the
	// talker made in the delay turn (Mouth) and those the kiosk's speaker
	// played (Ear, audio.OnsetDetector on SpeakerOptions.Monitor).
	TalkFrom    time.Time
	MouthOnsets []time.Time
	EarOnsets   []time.Time
	// Underruns is what acbridge_speaker_underruns_total counts in the
	// kiosk's process (audio.SpeakerUnderruns).
	Underruns uint64
	// SpeechSent: microphone packets of the spoken sentence's turn.
	SpeechSent int64
	Err        string
}

// kioskRole dials the agent from the kiosk's namespace and prints a
// kioskResult as JSON on stdout.
func kioskRole() int {
	var a kioskArgs
	if err := json.Unmarshal([]byte(os.Getenv(argsEnv)), &a); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var r kioskResult
	if a.MoveTo != "" {
		r = roam(a)
	} else {
		r = measure(a)
	}
	json.NewEncoder(os.Stdout).Encode(r)
	return 0
}

func measure(a kioskArgs) (r kioskResult) {
	ctx := context.Background()
	roots, err := client.LoadCAFile(a.CAFile)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	p := &client.Policy{AllowNetworks: []netip.Prefix{netlab.Network}, TLSConfig: &tls.Config{RootCAs: roots}, TotalTimeout: a.TotalTimeout}
	ag, err := client.Discover(ctx, a.URL, "", p)
	if err != nil {
		r.Err = err.Error()
		return r
	}
	opts := func() *client.WebRTCOptions {
		return &client.WebRTCOptions{ICEServers: a.ICEServers, RelayOnly: a.Relay, NoNACK: a.NoNACK, Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	}
	for i := 0; i < a.Replays; i++ {
		start := time.Now()
		tr, err := ag.DialWebRTC(ctx, opts())
		if err != nil {
			r.ReplayFails = append(r.ReplayFails, "dial: "+err.Error())
			if w := client.Lasting(err); w != nil {
				r.Lasting = append(r.Lasting, w.Code)
			}
			continue
		}
		r.SetupMs = append(r.SetupMs, ms(time.Since(start)))
		start = time.Now()
		rep := conformance.Replay(ctx, tr, ag.Card, conformance.ReferenceWalkthrough(), &conformance.ReplayOptions{StrictText: true})
		if rep.Passed {
			r.ReplayMs = append(r.ReplayMs, ms(time.Since(start)))
		} else {
			r.ReplayFails = append(r.ReplayFails, fmt.Sprint(rep.Divergence))
		}
		tr.Close(nil)
	}
	if a.Turns > 0 {
		if err := talk(ctx, ag, opts(), a, &r); err != nil {
			r.Err = err.Error()
		}
	}
	return r
}

// talk holds push-to-talk turns of 50 microphone packets each, speech
// (SILK copies only speech into the next packet as FEC) and a last one of
// a tone if a.ToneHz is set, then the spoken sentence's and the delay
// turn if asked for, and waits for each reply's run to complete. The
// agent's voice plays on a real Speaker (miniaudio's null device, which
// takes audio in real time), so its playout margin and underruns are the
// kiosk's.
func talk(ctx context.Context, ag *client.Discovered, o *client.WebRTCOptions, a kioskArgs, r *kioskResult) error {
	// The room's speaker is not the kiosk's: the microphone hears only
	// the talker.
	room := audiotest.NewRoom(audio.NewEchoPath(10*time.Millisecond, 60, 50*time.Millisecond, 50*time.Millisecond, 1))
	mic, err := audio.NewMic(&audio.MicOptions{Driver: room.Mic(), Encoder: audio.EncoderOptions{NoFEC: a.NoFEC}})
	if err != nil {
		return err
	}
	defer mic.Close()
	ear := audio.NewOnsetDetector()
	spk, err := audio.OpenSpeaker(&audio.SpeakerOptions{Backend: "null", Monitor: ear.Listen})
	if err != nil {
		return err
	}
	defer spk.Close()
	o.Mic = mic
	o.Sink = spk
	o.NewDecoder = func() (client.Decoder, error) { return audio.NewDecoder() }
	start := time.Now()
	r.TalkFrom = start
	tr, err := ag.DialWebRTC(ctx, o)
	if err != nil {
		return err
	}
	r.SetupMs = append(r.SetupMs, ms(time.Since(start)))
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID(), ExplicitTurns: true})
	if err != nil {
		tr.Close(nil)
		return err
	}
	defer s.Close()
	ptt, err := client.NewPushToTalk(s, tr)
	if err != nil {
		return err
	}
	for i := 0; i < a.Turns; i++ {
		room.Talk(audiotest.SpeechLike(2 * audio.SampleRate))
		if err := oneTurn(ctx, s, tr, ptt); err != nil {
			return err
		}
	}
	if a.ToneHz > 0 {
		room.Talk(audiotest.Tone(a.ToneHz, 0.25, 2*audio.SampleRate))
		if err := oneTurn(ctx, s, tr, ptt); err != nil {
			return err
		}
	}
	if a.SpeechWAV != "" {
		if err := speechTurn(ctx, s, tr, ptt, room, a.SpeechWAV, r); err != nil {
			return err
		}
	}
	if a.Delay {
		if err := delayTurn(ctx, s, tr, ptt, room, r); err != nil {
			return err
		}
	}
	st := tr.Stats()
	r.MicSent, r.ReplyRecv, r.ReplyLost = st.PacketsSent, st.PacketsReceived, st.PacketsLost
	r.Recovered, r.Concealed, r.PlayedMs, r.WithFEC, r.Late = st.Recovered, st.Concealed, ms(st.Played), st.PacketsWithFEC, st.Late
	q := tr.Quality()
	r.JitterMs, r.RTTMs = ms(q.Jitter), ms(q.RTT)
	// The last reply's last frames are still in the speaker's queue; the
	// Monitor sees the last of them once Close has waited for the device.
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := spk.Drain(dctx); err != nil {
		return err
	}
	spk.Close()
	r.EarOnsets = ear.Take()
	r.Underruns = audio.SpeakerUnderruns()
	return nil
}

// oneTurn holds one push-to-talk turn of 50 microphone packets and waits
// for its reply's run to complete.
func oneTurn(ctx context.Context, s *client.Session, tr *client.WebRTCTransport, ptt *client.PushToTalk) error {
	before := tr.Stats().PacketsSent
	if _, err := ptt.Press(ctx); err != nil {
		return err
	}
	// The turn lasts until the microphone has put a second of packets on
	// the track.
	if err := waitSent(s, tr, before+50); err != nil {
		return err
	}
	if _, err := ptt.Release(ctx); err != nil {
		return err
	}
	return waitRun(s)
}

// discardSink plays the agent's voice nowhere: the transport's counters
// are what is measured.
type discardSink struct{}

func (discardSink) Write([]int16) error { return nil }

func waitRun(s *client.Session) error {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case env, ok := <-s.Events():
			if !ok {
				return fmt.Errorf("session ended: %w", s.Err())
			}
			if env.Event.Type == protocol.EventRunCompleted {
				return nil
			}
		case <-timeout:
			return errors.New("no run.completed within 30 s")
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// agentIn starts the agent role in the lab's agent namespace on
// netlab.AgentAddr with a certificate of a fresh CA, and returns its URL,
// the CA's file and the process.
func agentIn(t *testing.T, l *netlab.Lab) (url, caFile string, p *netlab.Proc) {
	return agentWith(t, l, agentArgs{})
}

// agentWith is agentIn with the agent's options in a (its address and
// certificate filled in).
func agentWith(t *testing.T, l *netlab.Lab, a agentArgs) (url, caFile string, p *netlab.Proc) {
	t.Helper()
	dir := t.TempDir()
	ca := clienttest.NewCA(t)
	caFile, a.Cert, a.Key = ca.WriteFiles(t, dir, netlab.AgentAddr.String())
	a.Listen = netlab.AgentAddr.String() + ":443"
	cmd := l.Command(l.Agent, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=agent", argsEnv+"="+mustJSON(a))
	p = l.Start(cmd)
	return p.WaitLine(t, "listening on ", 20*time.Second), caFile, p
}

// kioskIn runs the kiosk role in the lab's kiosk namespace, bounded by d.
func kioskIn(t *testing.T, l *netlab.Lab, a kioskArgs, d time.Duration) kioskResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	cmd := l.Command(l.Kiosk, os.Args[0], "-test.run=^$")
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Env = append(os.Environ(), roleEnv+"=kiosk", argsEnv+"="+mustJSON(a))
	if a.TrustFile != "" {
		cmd.Env = append(cmd.Env, "SSL_CERT_FILE="+a.TrustFile)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("kiosk role: %v\n%s", err, stderr.String())
	}
	var r kioskResult
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("kiosk role output %q: %v\n%s", out, err, stderr.String())
	}
	if r.Err != "" {
		t.Logf("kiosk's log:\n%s", stderr.String())
	}
	r.SCTPGiveUps = sctpGiveUps(stderr.String())
	return r
}

// sctpGiveUps counts the SCTP handshakes pion abandoned in a log (its
// INIT or COOKIE ECHO retransmitted to its limit).
func sctpGiveUps(log string) int {
	return strings.Count(log, "retransmission failure: T1-")
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// heard returns the agent's audio turns from its log.
func heard(t *testing.T, log string) []agent.AudioTurn {
	t.Helper()
	var turns []agent.AudioTurn
	for _, line := range strings.Split(log, "\n") {
		rest, ok := strings.CutPrefix(line, "turn ")
		if !ok {
			continue
		}
		var at agent.AudioTurn
		if err := json.Unmarshal([]byte(rest), &at); err != nil {
			t.Fatalf("agent turn %q: %v", rest, err)
		}
		turns = append(turns, at)
	}
	return turns
}

// heardSum sums turns' counts.
func heardSum(turns []agent.AudioTurn) (sum agent.AudioTurn) {
	for _, at := range turns {
		sum.Packets += at.Packets
		sum.Lost += at.Lost
		sum.WithFEC += at.WithFEC
		sum.Recovered += at.Recovered
		sum.Concealed += at.Concealed
		sum.Late += at.Late
		sum.Before += at.Before
	}
	return sum
}

// concat writes the files' contents, one after the other, to dst.
func concat(t *testing.T, dst string, files ...string) {
	t.Helper()
	var b []byte
	for _, f := range files {
		c, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, c...)
	}
	if err := os.WriteFile(dst, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
