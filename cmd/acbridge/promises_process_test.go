package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
)

// agentProcess is the reference agent as a process of its own (the test
// binary re-executed as `acbridge agent`), so that it can be stopped with
// SIGSTOP like a hung agent.
type agentProcess struct {
	cmd    *exec.Cmd
	addr   string
	log    *bridgetest.Transcript
	exited chan error
}

func startAgentProcess(t *testing.T) *agentProcess {
	t.Helper()
	p := &agentProcess{log: &bridgetest.Transcript{}, exited: make(chan error, 1)}
	p.cmd = exec.Command(os.Args[0], "agent", "--listen", "127.0.0.1:0", "--insecure-local", "--physical")
	p.cmd.Env = append(os.Environ(), "ACBRIDGE_RUN_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.exited <- p.cmd.Wait() }()
	t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGCONT)
		p.cmd.Process.Kill()
		<-p.exited
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := p.log.Wait(ctx, "listening on http://", 1); err != nil {
		t.Fatalf("the agent did not start:\n%s", p.log.String())
	}
	p.addr = regexp.MustCompile(`listening on http://(\S+)`).FindStringSubmatch(p.log.String())[1]
	return p
}

// With the agent stopped (SIGSTOP) and the daemon saying it is not
// connected, a PHOTO press and a typed line are answered at once and
// dropped: after SIGCONT the agent's new session carries neither, and the
// camera was never opened.
func TestRunStaleInputWhileAgentStopped(t *testing.T) {
	dir := t.TempDir()
	ag := startAgentProcess(t)
	d := startDaemonAgent(t, dir, ag.addr, []string{`run_timeout = "1s"`, `cancel_grace = "1s"`},
		"[modalities]", `enabled = ["photo"]`, "[log]", `level = "debug"`)
	d.wait(d.out, "you can use: photo]", 1)

	// A hung agent: the typed line's run times out, the session ends.
	if err := stopProcess(ag.cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	d.say("hello")
	d.wait(d.out, "[not connected:", 1)
	notConnected := strings.Count(d.out.String(), "[not connected — press again when it says connected]")
	d.press(keyP)
	d.say("a stale line")
	d.wait(d.out, "[not connected — press again when it says connected]", notConnected+1)
	d.wait(d.out, "[not connected: nothing was sent", 1)

	if err := ag.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	d.wait(d.out, "you can use: photo]", 2)
	// A fresh line, answered: anything wrongly kept would have gone out
	// with the new session before it.
	answers := strings.Count(d.out.String(), "agent: ")
	d.say("a fresh line")
	d.wait(d.out, "agent: ", answers+1)

	out, errs := d.out.String(), d.err.String()
	for _, bad := range []string{"[photo sent]", "you: a stale line", "taking a photo"} {
		if strings.Contains(out, bad) {
			t.Errorf("stale input acted on (%q):\n%s", bad, out)
		}
	}
	for _, bad := range []string{"camera streaming", "photo captured"} {
		if strings.Contains(errs, bad) {
			t.Errorf("the camera was opened (%q in the log)", bad)
		}
	}

	// The agent's side: the new session carried session.start, the fresh
	// line and, at the daemon's stop, session.end — nothing else.
	d.cmd.Process.Signal(syscall.SIGTERM)
	<-d.exited
	d.exited <- nil
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := ag.log.Wait(ctx, "agent: connection closed", 2); err != nil {
		t.Fatalf("the agent did not see both connections close:\n%s", ag.log.String())
	}
	frames := regexp.MustCompile(`agent: connection closed.* frames=(\d+)`).FindAllStringSubmatch(ag.log.String(), -1)
	last := frames[len(frames)-1][1]
	t.Logf("frames per connection at the agent: %v (the last is the session after SIGCONT)", frames)
	if last != "3" {
		t.Errorf("the session after SIGCONT carried %s frames, want 3 (session.start, the fresh line, session.end):\n%s", last, ag.log.String())
	}
}

// At the process level: a silent agent is cancelled after
// agent.run_timeout and dropped after agent.cancel_grace; the kiosk is then
// free again (a new session takes a PHOTO press).
func TestRunSilentAgentFreesTheKiosk(t *testing.T) {
	dir := t.TempDir()
	a, addr := serveHostile(t, hostileagent.Silent)
	d := startDaemonAgent(t, dir, addr, []string{`run_timeout = "2s"`, `cancel_grace = "1s"`},
		"[modalities]", `enabled = ["photo"]`)
	d.wait(d.out, "you can use: photo]", 1)
	start := time.Now()
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	d.press(keyP)
	d.wait(d.out, "[the agent is still answering", 1)
	d.say("are you there?")
	d.wait(d.out, "[the agent is still answering: not sent", 1)
	d.wait(d.out, "[the agent has not answered for 2s: cancelling]", 1)
	d.wait(d.out, "[not connected: the agent did not end its answer after a cancel", 1)
	ended := time.Since(start)
	d.wait(d.out, "you can use: photo]", 2)
	up := time.Since(start)
	d.press(keyP)
	d.wait(d.out, "[photo sent]", 1)
	t.Logf("silent run to a free kiosk: %.2f s to the session's end, %.2f s to the next session (run_timeout 2 s, cancel_grace 1 s; with the defaults 30 s + 5 s)",
		ended.Seconds(), up.Seconds())
	types := strings.Join(a.Types(), " ")
	if !strings.Contains(types, "user.turn response.cancel session.end") {
		t.Errorf("the agent received %s; want user.turn, response.cancel, session.end in that order", types)
	}
	if strings.Count(types, "user.turn") != 1 {
		t.Errorf("a refused line reached the agent: %s", types)
	}
}

// A long CANCEL (the cancel key held past its long press) frees the
// kiosk from a silent agent within agent.cancel_grace, long before
// agent.run_timeout.
func TestRunLongCancelFreesTheKiosk(t *testing.T) {
	dir := t.TempDir()
	a, addr := serveHostile(t, hostileagent.Silent)
	d := startDaemonAgent(t, dir, addr, []string{`run_timeout = "5m"`, `cancel_grace = "1s"`},
		"[modalities]", `enabled = ["photo"]`,
		"[[button]]", `control = "cancel"`, `source = "evdev"`, fmt.Sprintf("device = %q", filepath.Join(dir, "keys")), `key = "KEY_C"`)
	d.wait(d.out, "you can use: photo]", 1)
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	keyC, _ := evdev.ParseKey("KEY_C")
	start := time.Now()
	if _, err := d.keys.Write(evdev.AppendKey(nil, time.Now(), keyC, true)); err != nil {
		t.Fatal(err)
	}
	d.wait(d.out, "[cancelled]", 1)
	if _, err := d.keys.Write(evdev.AppendKey(nil, time.Now(), keyC, false)); err != nil {
		t.Fatal(err)
	}
	d.wait(d.out, "[not connected: the agent did not end its answer after a cancel within 1s", 1)
	t.Logf("long CANCEL held at 0 s: kiosk freed (session ended) after %.2f s (long press 1 s, cancel_grace 1 s, run_timeout 5 m)",
		time.Since(start).Seconds())
	d.wait(d.out, "you can use: photo]", 2)
	if types := strings.Join(a.Types(), " "); !strings.Contains(types, "user.turn response.cancel session.end") {
		t.Errorf("the agent received %s", types)
	}
}
