package main

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// reloadDaemon is a daemon connected to the reference agent, and a way to
// rewrite its configuration and send SIGHUP.
type reloadDaemon struct {
	*daemonProc
	ag   *procAgent
	good string // the configuration it started with
}

func startReloadDaemon(t *testing.T) *reloadDaemon {
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	t.Cleanup(ag.stop)
	d := startDaemon(t, dir, ag.addr)
	d.wait(d.out, "[connected to", 1)
	good, err := os.ReadFile(d.path())
	if err != nil {
		t.Fatal(err)
	}
	return &reloadDaemon{daemonProc: d, ag: ag, good: string(good)}
}

func (d *daemonProc) path() string { return d.cmd.Args[len(d.cmd.Args)-2] }

func (d *reloadDaemon) reload(cfg string) {
	d.t.Helper()
	if err := os.WriteFile(d.path(), []byte(cfg), 0o600); err != nil {
		d.t.Fatal(err)
	}
	if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		d.t.Fatal(err)
	}
}

// sameSession checks that the session answers a typed line and that the
// daemon connected once.
func (d *reloadDaemon) sameSession(what string) {
	d.t.Helper()
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	d.wait(d.out, "agent: ", 1)
	if n := strings.Count(d.out.String(), "[connected to"); n != 1 {
		d.t.Errorf("the %s reconnected (%d connections):\n%s", what, n, d.out.String())
	}
}

// A SIGHUP whose configuration is refused changes nothing: the devices stay
// open and the agent session goes on (no second connection), so the next
// typed line is answered in the same session.
func TestRunRefusedReloadKeepsTheSession(t *testing.T) {
	d := startReloadDaemon(t)
	d.reload(d.good + "\n[camra]\n")
	d.wait(d.err, "reload refused, keeping the running configuration", 1)
	d.sameSession("refused reload")
}

// An accepted SIGHUP that changes only settings the session never reads
// (log.level) keeps the devices and the agent session: no new connection,
// no new session at the agent. A change the session reads (nfc.window)
// still starts a new one.
func TestRunReloadKeepsTheSession(t *testing.T) {
	d := startReloadDaemon(t)
	waitAgent(t, d.ag.log, "agent: session started", 1)
	debug := "\n[log]\nlevel = \"debug\"\n"
	d.reload(d.good + debug)
	d.wait(d.err, "reload: log.level changed, applied without reopening the devices; the agent session stays", 1)
	d.sameSession("log.level reload")
	if n := strings.Count(d.ag.log.String(), "agent: session started"); n != 1 {
		t.Errorf("the agent saw %d sessions after the log.level reload, want 1:\n%s", n, d.ag.log.String())
	}
	if strings.Contains(d.ag.log.String(), "agent: connection closed") {
		t.Errorf("the log.level reload closed the agent connection:\n%s", d.ag.log.String())
	}

	d.reload(strings.Replace(d.good, `window = "10s"`, `window = "12s"`, 1) + debug)
	d.wait(d.err, "SIGHUP: reloading the configuration", 2)
	d.wait(d.out, "[connected to", 2)
	waitAgent(t, d.ag.log, "agent: session started", 2)
}

func waitAgent(t *testing.T, log *bridgetest.Transcript, sub string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := log.Wait(ctx, sub, n); err != nil {
		t.Fatalf("agent: waiting for %q ×%d: %v\n%s", sub, n, err, log.String())
	}
}
