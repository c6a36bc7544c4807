package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/liberalagent"
)

// A correct agent that uses what the 0.1 contract leaves open — failure
// codes of its own ("RATE_LIMITED", 200 characters), texts and prompts far
// longer than a screen, a long unknown event type, segment IDs of 200
// characters, an opaque interactionId with a space, non-ASCII, a newline
// and 300 characters — keeps its session with `acbridge run` over both
// transports: the daemon shows it shortened, logs the ID escaped, and
// answers the request with the ID byte-exact.
func TestLiberalAgentKeepsItsSession(t *testing.T) {
	for _, transport := range []string{"websocket", "webrtc"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			ag := liberalagent.New(&liberalagent.Options{Transport: transport})
			addr := liberalagent.Serve(t, ag)
			dir := t.TempDir()
			spoken, extra := ttsConfig(dir)
			if transport == "webrtc" {
				extra = voiceConfig(dir, extra[1]) // one [audio] table
			}
			extra = append(extra, "[log]", `level = "debug"`)
			d := startDaemon(t, dir, addr, extra...)
			d.wait(d.out, "you can use:", 1)

			d.say("hello")
			d.wait(d.out, "agent asks: "+liberalagent.PromptHead, 1)
			d.press(keyP)
			d.wait(d.out, "agent: "+liberalagent.Answered, 1)

			out, errs := d.out.String(), d.err.String()
			if strings.Contains(out, "[not connected") || strings.Contains(errs, "protocol error") {
				t.Errorf("the session ended:\nstdout:\n%s\nstderr:\n%s", lastLines(out, 10), lastLines(errs, 10))
			}
			if got, ok := ag.Answer(); !ok || got != liberalagent.InteractionID {
				t.Errorf("the answer carries interactionId %.60q (%v), want the agent's byte-exact", got, ok)
			}
			for _, want := range []string{"(RATE_LIMITED)]", "(" + strings.Repeat("c", 64) + "…)]", "agent: " + liberalagent.TextHead} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %.80q:\n%s", want, lastLines(out, 10))
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if strings.HasPrefix(line, "agent asks: ") && len([]rune(line)) > 1100 {
					t.Errorf("the prompt is shown whole (%d characters)", len([]rune(line)))
				}
			}
			for name, s := range map[string]string{"stdout": out, "stderr": errs} {
				for _, line := range strings.Split(s, "\n") {
					if strings.HasPrefix(line, liberalagent.ForgedLogLine) {
						t.Errorf("%s has a line forged by the interactionId: %.80q", name, line)
					}
				}
			}
			if !strings.Contains(errs, `interactionId="req 1 — ☃\\n`+liberalagent.ForgedLogLine) {
				t.Errorf("the interactionId is not logged escaped:\n%s", grepLines(errs, "interactionId"))
			}
			// slog quotes a raw value (a newline becomes \n); the ID must
			// have been escaped before that, and cut, on every line.
			if strings.Contains(errs, `☃\n`) || strings.Contains(errs, strings.Repeat("i", 100)) {
				t.Errorf("the interactionId is logged raw or whole:\n%.300s", grepLines(errs, "interactionId"))
			}
			if !strings.Contains(errs, "agent text shortened for the screen") {
				t.Errorf("no debug line says what was shortened:\n%s", lastLines(errs, 10))
			}
			if transport == "websocket" {
				// voice.owner "client": the daemon speaks, 4,096 bytes at most.
				waitAny(5*time.Second, fileText(spoken), liberalagent.PromptHead)
				b, _ := os.ReadFile(spoken)
				for _, line := range strings.Split(string(b), "\n") {
					if len(line) > 4096 {
						t.Errorf("spoke %d bytes at once", len(line))
					}
				}
			}
		})
	}
}

// grepLines returns the lines of s containing sub.
func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// fileText is a wait for waitAny on the text of a file another process (the
// TTS command) writes: no event tells when it did, so it is read each 50 ms.
func fileText(path string) func(context.Context, func(string) bool) error {
	return func(ctx context.Context, cond func(string) bool) error {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			if b, _ := os.ReadFile(path); cond(string(b)) {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
	}
}
