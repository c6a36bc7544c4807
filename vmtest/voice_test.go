package vmtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/needs"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

// The guest reaches the voice agent and the TURN server on AgentHost at
// these ports. QEMU's restricted user network carries only TCP that the
// host forwards, as a firewall that opens only TCP does: the daemon's
// audio (RTP over UDP) goes to the host through TURN over TCP, and coturn
// relays it to the agent on the host's loopback.
const (
	voicePort = 81
	turnPort  = 3478
	// voiceLocal is the guest's loopback relay to the voice agent: the
	// daemon's policy allows plain HTTP to loopback only.
	voiceLocal = "127.0.0.1:8082"
	turnUser   = "kiosk"

	lineTalk = 5    // the TALK button on the header
	agentHz  = 550. // the pitch of the agent's voice; neither personHz nor kioskHz
)

// voicePeers are the host's side of the daemon's voice: a reference agent
// that owns voice over WebRTC (answering each committed turn with a
// voice at agentHz) and a TURN server, both on the host's loopback.
type voicePeers struct {
	agentAddr, turnAddr string
	turnPassword        string
	log, turnLog        *bridgetest.Transcript

	mu              sync.Mutex
	outside, inside int                  // the daemon's audio packets outside and inside turns
	turns           chan agent.AudioTurn // closed turns, as the agent measured them
}

// startVoicePeers starts the voice agent and coturn (TURN over TCP,
// long-term credentials, relaying to loopback peers such as the agent).
func startVoicePeers(t *testing.T) *voicePeers {
	t.Helper()
	turnd := needs.Tool(t, "coturn", "turnserver")
	// Line-buffered: coturn's log to a pipe is otherwise held in stdio's
	// buffer, and the readiness line may never arrive.
	stdbuf := needs.Tool(t, "coreutils", "stdbuf")
	v := &voicePeers{turns: make(chan agent.AudioTurn, 16)}
	ag := serveAgent(t, agent.Options{
		Transport:  "webrtc",
		ReplyVoice: &audio.VoiceOptions{Pitch: agentHz, Duration: 1500 * time.Millisecond},
		OnAudioPacket: func(turn int64) {
			v.mu.Lock()
			defer v.mu.Unlock()
			if turn == 0 {
				v.outside++
			} else {
				v.inside++
			}
		},
		OnAudioTurn: func(at agent.AudioTurn) {
			select {
			case v.turns <- at:
			default:
			}
		},
	})
	v.agentAddr, v.log = ag.addr, ag.log

	// coturn cannot be given port 0 and tell the one it took; the guest's
	// forward must name it before the boot.
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	v.turnAddr = fmt.Sprintf("127.0.0.1:%d", port)
	var pw [12]byte
	rand.Read(pw[:])
	v.turnPassword = hex.EncodeToString(pw[:])
	dir := t.TempDir()
	cmd := exec.Command(stdbuf, "-oL", turnd, "-n", "-v", "--no-cli", "--no-tls", "--no-dtls", "--no-rfc5780",
		"--simple-log", "--log-file", "stdout",
		"--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1", "--listening-port", fmt.Sprint(port),
		"--allow-loopback-peers",
		"--lt-cred-mech", "--realm", "acbridge.test", "--user", turnUser+":"+v.turnPassword, "--fingerprint",
		"--db", filepath.Join(dir, "turndb"), "--pidfile", filepath.Join(dir, "turnserver.pid"))
	turnLog := &bridgetest.Transcript{}
	v.turnLog = turnLog
	cmd.Stdout, cmd.Stderr = turnLog, turnLog
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("coturn:\n%s", turnLog.String())
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := turnLog.Wait(ctx, "Total General servers", 1); err != nil {
		t.Fatalf("coturn not ready: %v\n%s", err, turnLog.String())
	}
	return v
}

// forwards are the guest's ports on AgentHost for Options.Forwards.
func (v *voicePeers) forwards() map[int]string {
	return map[int]string{voicePort: v.agentAddr, turnPort: v.turnAddr}
}

func (v *voicePeers) packets() (outside, inside int) {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.outside, v.inside
}

// voiceConfig is the daemon with the voice agent, TURN as its only path
// (relay), the loopback card as microphone and speaker, and TALK on the
// header. The TURN server's password is in a credential file.
var voiceConfig = fmt.Sprintf(`[agent]
url = "http://%s"
allow_insecure_local = true
ice_transport = "relay"

[keystore]
path = "/tmp/voice-keystore.json"
allow_volatile = true

[modalities]
enabled = []

[audio]
microphone = %q
speaker = %q
echo_cancel = "off"

[[button]]
control = "talk"
source = "gpio"
chip = "header"
line = %d
active_low = true
bias = "pull-up"

[[agent.ice_servers]]
urls = ["turn:%s:%d?transport=tcp"]
username = %q
credential_file = "/etc/acbridge/turn.secret"
`, voiceLocal, loopMic, loopSpk, lineTalk, AgentHost, turnPort, turnUser)

// testVoice: `acbridge run` with an agent that owns voice, over WebRTC
// through TURN over TCP (the guest's only path). The person's 440 Hz
// plays into the loopback card's microphone side all along: the agent
// receives no audio before TALK is pressed; while it is held the agent
// hears the tone (its dominant frequency); after the release the agent's
// answer, a voice at agentHz, comes out on the card's playback side.
func (r *rig) testVoice(t *testing.T) {
	v := r.voice
	conf := voiceConfig
	if os.Getenv("ACBRIDGE_VM_FAULT") == "noturn" {
		// No TURN server, so no relay-only policy: the daemon then has
		// only its own loopback candidates, which cannot reach the host.
		conf = strings.Replace(conf, "ice_transport = \"relay\"\n", "", 1)
		conf = conf[:strings.Index(conf, "[[agent.ice_servers]]")]
	}
	r.sh(t, 20*time.Second, "while pidof acbridge >/dev/null; do usleep 50000; done")
	r.run(t, 10*time.Second, "relay", voiceLocal, fmt.Sprintf("%s:%d", AgentHost, voicePort))
	r.run(t, 10*time.Second, "mkdir", "-p", "/etc/acbridge")
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, v.turnPassword+"\n", "sh", "-c", "umask 077 && cat > /etc/acbridge/turn.secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, conf, "sh", "-c", "cat > /etc/acbridge/voice.toml"); err != nil {
		t.Fatal(err)
	}
	// The person talks before any press and until the test ends.
	r.talkAndListen(t, "/tmp/voice-ear")
	r.sh(t, 10*time.Second, "(acbridge run --config /etc/acbridge/voice.toml > /tmp/voice.log 2> /tmp/voice-err.log; echo exit=$? >> /tmp/voice-err.log) >/dev/null 2>&1 &")
	t.Cleanup(func() {
		// t.Context is over by the time cleanups run. The audio test
		// after this one needs the card's substreams free.
		ctx := context.Background()
		if t.Failed() {
			out, _ := r.vm.Run(ctx, 10*time.Second, "sh", "-c", "cat /tmp/voice.log; echo ---; tail -50 /tmp/voice-err.log; cat /tmp/voice-ear.log /tmp/voice-ear-person.log")
			t.Logf("daemon:\n%s\nagent:\n%s", out.Stdout, v.log.String())
		}
		r.vm.Run(ctx, 10*time.Second, "sh", "-c", "kill $(pidof acbridge arecord aplay) 2>/dev/null; "+
			"while pidof acbridge arecord aplay >/dev/null; do usleep 50000; done")
	})
	// The hint shows once the session, its audio path included, is up.
	r.waitFile(t, "/tmp/voice.log", "hold TALK to speak to the agent", 1, 90*time.Second)
	r.sh(t, 5*time.Second, "grep -q RUNNING /proc/asound/card0/pcm0p/sub0/status")
	// The span watched while the person talks unpressed: no event marks
	// packets' absence.
	time.Sleep(3 * time.Second)
	if outside, inside := v.packets(); outside+inside != 0 {
		t.Fatalf("the agent received %d audio packets before TALK was pressed, want none", outside+inside)
	}

	pull := simLine(lineTalk) + "/pull"
	if os.Getenv("ACBRIDGE_VM_FAULT") != "nopress" {
		r.sh(t, 5*time.Second, "echo pull-down > "+pull)
	}
	// Hold for 1.5 s of the microphone's 20 ms packets at the agent.
	if !poll.Until(30*time.Second, 100*time.Millisecond, func() bool { _, in := v.packets(); return in >= 75 }) {
		outside, inside := v.packets()
		t.Fatalf("TALK held: the agent received %d audio packets in the turn (%d outside), want 75", inside, outside)
	}
	r.waitFile(t, "/tmp/voice.log", "listening: speak, then let go of TALK", 1, 5*time.Second)
	r.sh(t, 5*time.Second, "echo pull-up > "+pull)
	var turn agent.AudioTurn
	select {
	case turn = <-v.turns:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent closed no audio turn within 30 s of TALK's release")
	}
	t.Logf("the agent's turn: committed %v, %d packets, %d lost, dominant %.0f Hz, RMS %.3f", turn.Committed, turn.Packets, turn.Lost, turn.Levels.Dominant, turn.Levels.RMS)
	// coturn (-v) logs each request it served, never the media.
	for _, req := range []string{"ALLOCATE processed, success", "CREATE_PERMISSION processed, success"} {
		if !strings.Contains(v.turnLog.String(), req) {
			t.Errorf("coturn's log has no %q: the audio did not go through the TURN server", req)
		}
	}
	if !turn.Committed {
		t.Error("TALK's release did not commit the turn")
	}
	if math.Abs(turn.Levels.Dominant-personHz) > 10 {
		t.Errorf("the agent heard %.0f Hz, want the person's %.0f Hz (±10)", turn.Levels.Dominant, personHz)
	}

	// The agent answers the committed turn; its voice must come out of
	// the speaker into the ear's recording.
	var hz, share, dbfs float64
	heard := poll.Until(60*time.Second, 2*time.Second, func() bool {
		hz, share, dbfs = toneIn(r.fetchPCM(t, "/tmp/voice-ear.wav"), agentHz)
		return share > 0.5 && dbfs > -40 && math.Abs(hz-agentHz) <= 10
	})
	t.Logf("ear: %.0f%% of the power at %.0f Hz, %.1f dBFS", 100*share, hz, dbfs)
	if !heard {
		t.Errorf("the agent's %.0f Hz voice did not come out of the loopback card's playback side: strongest %.0f Hz, %.0f%% of the power at it, %.1f dBFS", agentHz, hz, 100*share, dbfs)
	}
	// The person went on talking after the release, through the reply
	// (seconds: 50 packets a second if the microphone stayed open). A few
	// packets may follow the turn's end, which travels on the data
	// channel, not with the audio.
	outside, _ := v.packets()
	t.Logf("audio packets at the agent outside the turn, after the reply: %d", outside)
	if outside > 5 {
		t.Errorf("the agent received %d audio packets outside the turn after TALK's release, want at most 5", outside)
	}
	logs := r.run(t, 5*time.Second, "sh", "-c", "cat /tmp/voice.log /tmp/voice-err.log").Stdout
	if strings.Contains(logs, v.turnPassword) || strings.Contains(v.log.String(), v.turnPassword) {
		t.Error("the TURN password is in a log")
	}
}
