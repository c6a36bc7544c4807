package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// The hostile agent against the real daemon: `acbridge run` as a process, the
// hostile agent served in the test process on 127.0.0.1.

// canaries must never reach the daemon's stdout, stderr or speech, whatever
// the agent does.
var canaries = []string{
	hostileagent.HiddenTextCanary,
	hostileagent.HiddenPromptCanary,
	"NOT A VALID CODE",
	hostileagent.HiddenInteractionID,
}

// serveHostile serves a hostile agent on 127.0.0.1 until the test ends.
func serveHostile(t *testing.T, mode hostileagent.Mode) (*hostileagent.Agent, string) {
	t.Helper()
	a := hostileagent.New(&hostileagent.Options{Mode: mode})
	return a, hostileagent.Serve(t, a)
}

// hostileDaemon serves a hostile agent in mode and starts the daemon against
// it, its speech going to a file; it returns once the daemon is connected.
func hostileDaemon(t *testing.T, mode hostileagent.Mode) (ag *hostileagent.Agent, d *daemonProc, spoken string) {
	t.Helper()
	ag, addr := serveHostile(t, mode)
	dir := t.TempDir()
	spoken, tts := ttsConfig(dir)
	d = startDaemon(t, dir, addr, tts...)
	d.wait(d.out, "you can use:", 1)
	return ag, d, spoken
}

// ttsConfig makes the daemon's speech a file the test can read.
func ttsConfig(dir string) (path string, config []string) {
	path = filepath.Join(dir, "spoken.txt")
	return path, []string{"[audio]", fmt.Sprintf(`tts_command = ["sh", "-c", "cat >> %s; echo >> %s"]`, path, path)}
}

// waitAny waits up to d for any of subs in a text, and reports which ("" for
// none). wait calls its argument with the text after each change:
// Transcript.WaitText, or agentTypes.
func waitAny(d time.Duration, wait func(context.Context, func(string) bool) error, subs ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	got := ""
	wait(ctx, func(s string) bool {
		for _, sub := range subs {
			if strings.Contains(s, sub) {
				got = sub
				return true
			}
		}
		return false
	})
	return got
}

// agentTypes is a wait for waitAny on the types of the messages ag received.
func agentTypes(ag *hostileagent.Agent) func(context.Context, func(string) bool) error {
	return func(ctx context.Context, cond func(string) bool) error {
		return ag.Wait(ctx, func() bool { return cond(strings.Join(ag.Types(), " ")) })
	}
}

// stop ends the daemon with SIGTERM and waits for it to exit. The daemon
// waits for its speech before it exits, so its output and its speech are
// whole then: the event a check of everything it said waits for.
func (d *daemonProc) stop() {
	d.t.Helper()
	d.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-d.exited:
		d.exited <- err // for the cleanup's wait
		if err != nil {
			d.t.Logf("the daemon's exit on SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		d.t.Fatalf("the daemon did not exit on SIGTERM:\n%s", lastLines(d.err.String(), 5))
	}
}

// waitConnected waits up to d for the daemon's latest connection notice to
// say it is connected.
func waitConnected(p *daemonProc, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return p.out.WaitText(ctx, func(out string) bool {
		return strings.LastIndex(out, "[connected to ") > strings.LastIndex(out, "[not connected")
	}) == nil
}

// Differently cased duplicate keys: nothing hidden behind them reaches the
// screen, the logs or the speaker, and a hidden interaction.requested is
// never answered.
func TestHostileCaseKeys(t *testing.T) {
	t.Parallel()
	ag, d, spoken := hostileDaemon(t, hostileagent.CaseKeys)
	d.say("what are you hiding?")
	got := waitAny(15*time.Second, d.out.WaitText, "visible failure", "[not connected")
	// The run's end, or the session's: a press before it is refused.
	end := waitAny(15*time.Second, d.err.WaitText, "agent answered", "agent session ended")
	t.Logf("after the run (%q, %q):\n%s", got, end, lastLines(d.out.String(), 8))

	// A photo: had the hidden request been registered, the press would
	// answer it with its interactionId. (A client that dropped the session
	// over the run must have reconnected first.)
	if !waitConnected(d, 10*time.Second) {
		t.Errorf("the daemon did not reconnect:\n%s", lastLines(d.out.String(), 5))
	}
	d.press(keyP)
	obs := waitAny(15*time.Second, agentTypes(ag), "user.observation")
	for _, m := range ag.Messages() {
		if strings.Contains(string(m), hostileagent.HiddenInteractionID) {
			t.Errorf("the photo answered the hidden interaction.requested: %.200s", m)
		}
	}
	if obs == "" {
		t.Errorf("the photo never reached the agent (types %q); stdout:\n%s", compact(ag.Types()), lastLines(d.out.String(), 8))
	}
	d.stop()
	stdout, stderr := d.out.String(), d.err.String()
	speech, _ := os.ReadFile(spoken)
	for _, c := range canaries {
		for name, s := range map[string]string{"stdout": stdout, "stderr": stderr, "speech": string(speech)} {
			if strings.Contains(s, c) {
				t.Errorf("%s shows the hidden %q", name, c)
			}
		}
	}
	if strings.Contains(stdout, "agent asks:") {
		t.Errorf("a hidden interaction.requested prompted:\n%s", lastLines(stdout, 8))
	}
	if !strings.Contains(stdout, "agent: "+hostileagent.VisibleText) {
		t.Errorf("the visible text.delta was not shown")
	}
	if regexp.MustCompile(`/9j/[A-Za-z0-9+/]{40}`).MatchString(stdout+stderr) || strings.Contains(stdout+stderr, "\xff\xd8\xff") {
		t.Errorf("JPEG bytes appear in the daemon's output")
	}
	t.Logf("stdout %d bytes, stderr %d bytes, speech %d bytes", len(stdout), len(stderr), len(speech))
}

// A tag tapped with a hostile agent connected: the raw UID never reaches
// the agent, the screen, the logs or the speaker; the alias does reach the
// agent.
func TestHostileTagCanary(t *testing.T) {
	// Parallel first: paused while holding the machine-wide vpcd lock, the
	// test would block the package's sequential tests that need it.
	t.Parallel()
	vpcdtest.Require(t)
	ag, d, spoken := hostileDaemon(t, hostileagent.CaseKeys)
	d.wait(d.out, "you can use: tag scan", 1)
	card := vpcd.New(vpcd.DefaultAddr)
	defer card.Close()
	uid := []byte{0x04, 0xCA, 0x4A, 0x21, 0x55, 0x1D, 0x0E} // the canary
	d.tap(card, uid)
	d.wait(d.out, "[tag sent]", 1)
	card.Remove()
	if waitAny(10*time.Second, agentTypes(ag), "user.observation") == "" {
		t.Fatalf("no observation reached the agent: %q", compact(ag.Types()))
	}
	// The agent's answer is the CaseKeys run, which ends in its failure.
	if waitAny(15*time.Second, d.out.WaitText, "visible failure", "[not connected") == "" {
		t.Errorf("the agent's answer never showed:\n%s", lastLines(d.out.String(), 5))
	}
	d.stop()
	var wire strings.Builder
	for _, m := range ag.Messages() {
		wire.Write(m)
	}
	if !strings.Contains(wire.String(), `"objectRef":"urn:agentcall:object:`) {
		t.Errorf("the observation carries no alias: %.300s", wire.String())
	}
	speech, _ := os.ReadFile(spoken)
	hex := fmt.Sprintf("%X", uid)
	forms := []string{hex, strings.ToLower(hex), string(uid), fmt.Sprintf("% X", uid), strings.ReplaceAll(fmt.Sprintf("% X", uid), " ", ":")}
	for name, s := range map[string]string{"the wire": wire.String(), "stdout": d.out.String(), "stderr": d.err.String(), "speech": string(speech)} {
		for _, f := range forms {
			if strings.Contains(s, f) || strings.Contains(strings.ToLower(s), strings.ToLower(f)) {
				t.Errorf("%s carries the tag UID as %q", name, f)
			}
		}
	}
}

// Control characters from the agent never reach the terminal or the
// speaker; the forged status line never starts a line.
func TestHostileControls(t *testing.T) {
	t.Parallel()
	_, d, spoken := hostileDaemon(t, hostileagent.Controls)
	d.say("show me your colours")
	// The run ends with a pending request; a client may also refuse the
	// whole run and reconnect. Either way the output is checked.
	if waitAny(15*time.Second, d.out.WaitText, "press SCAN", "[not connected") == "" {
		t.Fatalf("the run never showed:\n%s", lastLines(d.out.String(), 5))
	}
	// The prompt is the run's last event; the rest is its speech.
	d.stop()
	stdout := d.out.String()
	speech, _ := os.ReadFile(spoken)
	t.Logf("stdout after the run: %q", lastLines(stdout, 6))
	for name, s := range map[string]string{"stdout": stdout, "speech": string(speech)} {
		if bad := controls(s); len(bad) > 0 {
			t.Errorf("%s carries control characters %q", name, bad)
		}
		for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
			if strings.HasPrefix(line, "[connected to https://bank.example") {
				t.Errorf("%s has a forged status line: %q", name, line)
			}
		}
	}
	if len(speech) == 0 {
		t.Error("nothing was spoken: the speech check proved nothing")
	}
	if strings.ContainsRune(d.err.String(), 0x1b) {
		t.Error("stderr carries ESC")
	}
}

// controls lists the C0 (but LF and TAB), DEL and C1 characters in s, and
// whether s is invalid UTF-8, which a terminal may read as C1 bytes.
func controls(s string) []string {
	var bad []string
	if !utf8.ValidString(s) {
		bad = append(bad, "invalid UTF-8")
	}
	seen := map[rune]bool{}
	for _, r := range s {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			if !seen[r] {
				seen[r] = true
				bad = append(bad, fmt.Sprintf("U+%04X", r))
			}
		}
	}
	return bad
}

// A frame declaring 1 GiB: the daemon closes the connection at once and
// spends little CPU on it, however often the agent does it.
func TestHostileHugeFrame(t *testing.T) {
	t.Parallel()
	ag, d, _ := hostileDaemon(t, hostileagent.HugeFrame)
	share, err := cpuShare(d.cmd.Process.Pid, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	closed, open := ag.Conns(), ag.Live()
	var worst time.Duration
	var figures []string
	for _, c := range closed {
		worst = max(worst, c.HugeToEnd)
		figures = append(figures, fmt.Sprintf("%.2fs", c.HugeToEnd.Seconds()))
	}
	for _, c := range open {
		worst = max(worst, c.HugeToEnd)
		figures = append(figures, fmt.Sprintf("still open after %.2fs", c.HugeToEnd.Seconds()))
	}
	t.Logf("huge frame: daemon CPU %.1f%% of a core over 10 s; %d connection(s) closed; seconds from the 1 GiB header to the close: %s",
		share*100, len(closed), strings.Join(figures, ", "))
	t.Logf("stdout:\n%s\nstderr:\n%s", lastLines(d.out.String(), 3), lastLines(d.err.String(), 3))
	if len(closed)+len(open) == 0 {
		t.Fatal("the agent saw no connection: the test proved nothing")
	}
	if worst > 2*time.Second {
		t.Errorf("the daemon held a 1 GiB frame's connection for %v; want a close at once (≤ 2 s)", worst.Round(time.Millisecond))
	}
	if share > 0.5 {
		t.Errorf("the daemon used %.0f%% of a core against the huge-frame agent; want < 50%%", share*100)
	}
	if !strings.Contains(d.out.String(), "frame") {
		t.Errorf("the daemon did not say the agent's frame was the problem:\n%s", lastLines(d.out.String(), 5))
	}
}

// A ping flood costs the daemon little CPU.
func TestHostilePingFlood(t *testing.T) {
	t.Parallel()
	ag, d, _ := hostileDaemon(t, hostileagent.PingFlood)
	share, err := cpuShare(d.cmd.Process.Pid, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ag.Close()
	var pings, pongs int64
	for _, c := range ag.Conns() {
		pings, pongs = pings+c.PingsSent, pongs+c.PongsReceived
	}
	t.Logf("ping flood: daemon CPU %.1f%% of a core over 10 s; %d pings sent, %d pongs received, %d connection(s)",
		share*100, pings, pongs, ag.Connections())
	if pings == 0 {
		t.Fatal("no pings were sent: the test proved nothing")
	}
	if share > 0.5 {
		t.Errorf("the daemon used %.0f%% of a core answering pings; want < 50%%", share*100)
	}
}

// An agent that closes every connection at once: the daemon stays up,
// reconnects with a backoff, and says what is wrong. The daemon's log
// counts its failures and names each delay it draws; with reconnect_max
// 1 s each is 0.5–1 s, where a loop without a backoff would redial at once.
func TestHostileCloseAtOnce(t *testing.T) {
	t.Parallel()
	ag, addr := serveHostile(t, hostileagent.CloseAtOnce)
	d := startDaemon(t, t.TempDir(), addr)
	const attempts = 4
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var rs []bridgetest.Reconnect
	if err := d.err.WaitText(ctx, func(log string) bool {
		rs, _ = bridgetest.Reconnects(log)
		return len(rs) >= attempts
	}); err != nil {
		t.Fatalf("%d reconnects of %d:\n%s", len(rs), attempts, lastLines(d.err.String(), 10))
	}
	select {
	case err := <-d.exited:
		d.exited <- err
		t.Fatalf("the daemon exited: %v\n%s", err, lastLines(d.err.String(), 10))
	default:
	}
	rs = rs[:attempts]
	for i, rc := range rs {
		if rc.Attempt != i+1 || rc.Delay < 490*time.Millisecond || rc.Delay > time.Second {
			t.Errorf("reconnect %d: attempt %d after %s; want attempt %d after 0.5–1 s", i+1, rc.Attempt, rc.Delay, i+1)
		}
	}
	if i := bridgetest.Waited(rs, 2*time.Millisecond); i >= 0 {
		t.Errorf("reconnect %d came %s after the one before, which drew %s", i+1, rs[i].At.Sub(rs[i-1].At), rs[i-1].Delay)
	}
	// Each connection is one attempt: none made beside the backoff (the
	// one after the last logged delay may be under way).
	n := ag.Connections()
	notices := regexp.MustCompile(`\[not connected: [^\n]*`).FindAllString(d.out.String(), -1)
	t.Logf("close at once: %d connection(s) for %d reconnects; last notice %q", n, attempts, lastLines(strings.Join(notices, "\n"), 1))
	if n > attempts+1 {
		t.Errorf("%d connections for %d reconnects: the daemon redials beside its backoff", n, attempts)
	}
	if len(notices) == 0 {
		t.Fatalf("no [not connected] notice on stdout:\n%s", lastLines(d.out.String(), 10))
	}
	if last := notices[len(notices)-1]; !strings.Contains(last, "closed") || !strings.Contains(last, "retrying in") {
		t.Errorf("the notice does not say the agent closed the connection: %q", last)
	}
}

// lastLines returns the last n lines of s, each cut to 200 bytes: a
// hostile agent's lines can be 100,000 characters long.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	lines = lines[max(0, len(lines)-n):]
	for i, l := range lines {
		if len(l) > 200 {
			lines[i] = fmt.Sprintf("%s… (%d bytes)", l[:200], len(l))
		}
	}
	return strings.Join(lines, "\n")
}

// compact shortens a list of message types for a failure message.
func compact(types []string) []string {
	if len(types) > 20 {
		return append(types[:10:10], fmt.Sprintf("… %d more", len(types)-10))
	}
	return types
}
