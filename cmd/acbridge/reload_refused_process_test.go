package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// A SIGHUP whose configuration is refused changes nothing: the devices stay
// open and the agent session goes on (no second connection), so the next
// typed line is answered in the same session.
func TestRunRefusedReloadKeepsTheSession(t *testing.T) {
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	d := startDaemon(t, dir, ag.addr)
	d.wait(d.out, "[connected to", 1)
	path := filepath.Join(dir, "acbridge.toml")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(good, []byte("\n[camra]\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	d.wait(d.err, "reload refused, keeping the running configuration", 1)
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	d.wait(d.out, "agent: ", 1)
	if n := strings.Count(d.out.String(), "[connected to"); n != 1 {
		t.Errorf("the refused reload reconnected (%d connections):\n%s", n, d.out.String())
	}
}
