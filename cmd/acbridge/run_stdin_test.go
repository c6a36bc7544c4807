package main

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// With --stdin-text and terminal buttons, standard input has one reader:
// a typed sentence reaches the agent whole, even when it is made of key
// letters ("take a photo" holds t, p and s), and presses nothing; a line
// that is one key's character presses that control.
func TestRunStdinTextWithTerminalButtons(t *testing.T) {
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	d := startDaemon(t, dir, ag.addr,
		"[[button]]", `control = "photo"`, `source = "terminal"`, `char = "p"`,
		"[[button]]", `control = "talk"`, `source = "terminal"`, `char = "t"`,
		"[[button]]", `control = "scan"`, `source = "terminal"`, `char = "s"`)
	d.wait(d.out, "[connected to", 1)

	// Each line waits for the agent's answer (a line typed during a run is
	// refused): a text, then a request for a photo.
	d.say("hello")
	d.wait(d.out, "you: hello", 1)
	d.wait(d.err, "agent answered", 1)
	d.say("take a photo")
	d.wait(d.out, "you: take a photo", 1)
	d.wait(d.out, "agent asks:", 1)
	d.say("p")
	d.wait(d.out, "[photo sent]", 1)

	out := d.out.String()
	if strings.Count(out, "[photo sent]") != 1 || strings.Contains(out, "[listening") || strings.Contains(out, "you: p\n") {
		t.Errorf("a typed sentence pressed a control, or a key line was sent as text:\n%s", out)
	}
	if i, j := strings.Index(out, "you: take a photo"), strings.Index(out, "[photo sent]"); i < 0 || j < i {
		t.Errorf("order of events:\n%s", out)
	}
}
