package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// endTrace is the shortest session: start, established, session.end.
const endTrace = `[
{"direction":"client","message":{"type":"session.start","sessionId":"stop","clientCapabilities":{"physicalObservations":{"modalities":["nfc"]}}}},
{"direction":"server","message":{"sequence":1,"event":{"type":"session.established","resumed":false}}},
{"direction":"client","message":{"type":"session.end"}}
]`

// Ten client processes against the reference agent over WebRTC, each
// sending session.end and exiting at once: the agent sees every one (issue
// 13 item 5: 2 of 10 daemon stops, 1 of 10 replays before).
func TestWebRTCSessionEndOnEveryProcessStop(t *testing.T) {
	const stops = 10
	p := startAgentCmd(t, "--listen", "127.0.0.1:0", "--insecure-local", "--transport", "webrtc")
	trace := filepath.Join(t.TempDir(), "end.json")
	if err := os.WriteFile(trace, []byte(endTrace), 0o600); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= stops; i++ {
		cmd := exec.Command(os.Args[0], "replay", "--agent", p.url, "--allow-insecure-local", "--transport", "webrtc", "--trace", trace)
		cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "3 of 3 steps matched") {
			t.Fatalf("stop %d: %v\n%s\nagent:\n%s", i, err, out, p.log())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	p.stderr.Wait(ctx, "agent: connection closed", stops) // the count is checked below
	if got := strings.Count(p.log(), "agent: session ended by client"); got != stops {
		t.Fatalf("the agent saw session.end from %d of %d client processes\n%s", got, stops, p.log())
	}
	t.Logf("session.end reached the agent from %d of %d client processes", stops, stops)
}

// `acbridge run` stopped by SIGTERM ten times, each with a WebRTC session
// up: the agent sees session.end from every stop (2 of 10 did before the
// fix), and the daemon still exits promptly.
func TestRunDaemonSessionEndOnEverySIGTERM(t *testing.T) {
	const stops = 10
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}, opts: &agent.Options{Transport: "webrtc"}}
	ag.start()
	defer ag.stop()
	for i := 1; i <= stops; i++ {
		dir := t.TempDir()
		d := startDaemon(t, dir, ag.addr, voiceConfig(dir)...)
		d.wait(d.out, "[hold TALK to speak to the agent", 1)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		if err := ag.log.Wait(ctx, "agent: session started", i); err != nil {
			t.Fatalf("stop %d: no session at the agent\n%s", i, ag.log.String())
		}
		cancel()
		start := time.Now()
		if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		select {
		case err := <-d.exited:
			d.exited <- err // for startDaemon's cleanup
			if err != nil {
				t.Fatalf("stop %d: %v\n%s", i, err, d.err.String())
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("stop %d: the daemon did not exit after SIGTERM\n%s", i, d.err.String())
		}
		t.Logf("stop %d: exited %v after SIGTERM", i, time.Since(start).Round(time.Millisecond))
		ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
		err := ag.log.Wait(ctx, "agent: connection closed", i)
		cancel()
		if err != nil {
			t.Fatalf("stop %d: the agent did not close the session\n%s", i, ag.log.String())
		}
	}
	if got := strings.Count(ag.log.String(), "agent: session ended by client"); got != stops {
		t.Fatalf("the agent saw session.end in %d of %d daemon stops\n%s", got, stops, ag.log.String())
	}
	t.Logf("session.end reached the agent in %d of %d daemon stops", stops, stops)
}
