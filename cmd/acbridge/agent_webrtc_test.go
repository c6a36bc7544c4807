package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/internal/testutil/poll"
	"go.uber.org/goleak"
)

// acbridge agent --transport webrtc serves the webrtc card, and acbridge
// replay --transport webrtc plays the public walkthrough against it.
func TestAgentCommandWebRTCReplay(t *testing.T) {
	p := startAgentCmd(t, "--listen", "127.0.0.1:0", "--insecure-local", "--transport", "webrtc", "--physical")
	code, out, errs := run(t, "replay", "--agent", p.url, "--allow-insecure-local", "--transport", "webrtc", "--strict-text", "--trace", referenceTraceFile(t))
	if code != 0 || !strings.Contains(out, "conforms over webrtc: 69 of 69 steps matched") {
		t.Fatalf("exit %d\n%s%s\nagent:\n%s", code, out, errs, p.log())
	}
	code, out, errs = run(t, "replay", "--agent", p.url, "--allow-insecure-local", "--strict", "--strict-text", "--trace", referenceTraceFile(t))
	if code != 0 || !strings.Contains(out, "conforms over webrtc: 69 of 69 steps matched (strict mode)") {
		t.Fatalf("--strict: exit %d\n%s%s\nagent:\n%s", code, out, errs, p.log())
	}
	// Asking for the other transport is refused, naming the card's.
	code, _, errs = run(t, "replay", "--agent", p.url, "--allow-insecure-local", "--transport", "websocket")
	if code != 1 || !strings.Contains(errs, `offers transport "webrtc"`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := run(t, "agent", "--listen", "127.0.0.1:0", "--insecure-local", "--transport", "sse"); code != 2 || !strings.Contains(errs, "websocket or webrtc") {
		t.Fatalf("--transport sse: exit %d: %s", code, errs)
	}
}

// Killing the agent process mid-turn ends the client's session with
// ErrConnectionLost once ICE notices the silence; the microphone is closed
// and no goroutine of the client outlives Close.
func TestWebRTCAgentProcessKilled(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	cmd := exec.Command(os.Args[0], "agent", "--listen", "127.0.0.1:0", "--insecure-local", "--transport", "webrtc")
	cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	defer func() { cmd.Process.Kill(); <-exited }()
	urls := make(chan string, 1)
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
				urls <- u
			}
		}
		cmd.Wait()
	}()
	var base string
	select {
	case base = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatal("the agent process did not start")
	}

	ctx := context.Background()
	ag, err := client.Discover(ctx, base, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	rs := clienttest.StartRTCTurns(t, ag, &client.WebRTCOptions{ICEDisconnectedTimeout: 2 * time.Second})
	mic, s, ptt := rs.Mic, rs.Session, rs.PTT
	// goleak's deferred check runs before t.Cleanup would close these.
	defer func() { s.Close(); mic.Close() }()
	if _, err := ptt.Press(ctx); err != nil {
		t.Fatal(err)
	}
	// The agent process is killed mid-turn: once the client wrote 300 ms
	// of it (the agent process has no hook to tell what it received).
	if !poll.Until(10*time.Second, 10*time.Millisecond, func() bool { return rs.Transport.Stats().PacketsSent >= 15 }) {
		t.Fatalf("the turn did not stream: %+v", rs.Transport.Stats())
	}
	killed := time.Now()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the session outlived the agent by 15 s")
	}
	t.Logf("session ended %v after the kill: %v", time.Since(killed).Round(time.Millisecond), s.Err())
	if !errors.Is(s.Err(), client.ErrConnectionLost) {
		t.Fatalf("session ended with %v", s.Err())
	}
	if mic.Running() {
		t.Fatal("microphone open after the connection was lost")
	}
	if _, err := ptt.Release(ctx); err == nil {
		t.Fatal("a turn committed on a dead session")
	}
	s.Close()
	mic.Close()
}
