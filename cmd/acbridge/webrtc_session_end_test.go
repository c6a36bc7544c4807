package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	deadline := time.Now().Add(20 * time.Second)
	for strings.Count(p.log(), "agent: connection closed") < stops && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if got := strings.Count(p.log(), "agent: session ended by client"); got != stops {
		t.Fatalf("the agent saw session.end from %d of %d client processes\n%s", got, stops, p.log())
	}
	t.Logf("session.end reached the agent from %d of %d client processes", stops, stops)
}
