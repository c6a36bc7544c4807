package main

import (
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/daemon"
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

// Without --stdin-text a typed line is not sent, and not dropped without a
// word either: the kiosk says once how to type to the agent.
func TestRunTypedLineWithoutStdinText(t *testing.T) {
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	d := newDaemon(t, dir, ag.addr)
	d.cmd.Args = slices.DeleteFunc(d.cmd.Args, func(a string) bool { return a == "--stdin-text" })
	d.start()
	d.wait(d.out, "[connected to", 1)
	d.say("hello")
	d.say("again")
	d.wait(d.out, daemon.TypedTextOff, 1)
	// The daemon's own end is the event after which nothing more is said.
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-d.exited
	d.exited <- nil
	out := d.out.String()
	if n := strings.Count(out, daemon.TypedTextOff); n != 1 || strings.Contains(out, "you: ") {
		t.Errorf("the notice %d times, or a line sent as text:\n%s", n, out)
	}
}

// Without --stdin-text, terminal buttons read standard input as keys: the
// first character typed that is no key says, once, that typed text goes
// nowhere and which keys there are; the keys still act.
func TestRunTerminalButtonsWithoutStdinText(t *testing.T) {
	dir := t.TempDir()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{}}
	ag.start()
	defer ag.stop()
	d := newDaemon(t, dir, ag.addr,
		"[[button]]", `control = "photo"`, `source = "terminal"`, `char = "p"`)
	d.cmd.Args = slices.DeleteFunc(d.cmd.Args, func(a string) bool { return a == "--stdin-text" })
	d.start()
	d.wait(d.out, "[connected to", 1)
	d.say("hello")
	d.say("again")
	d.wait(d.out, "[typed text is not sent to the agent: standard input only presses the terminal buttons (", 1)
	d.say("p")
	d.wait(d.out, "[photo sent]", 1)
	out := d.out.String()
	if n := strings.Count(out, "[typed text is not sent"); n != 1 || strings.Contains(out, "you: ") || !strings.Contains(out, "p photo") {
		t.Errorf("the notice %d times, without the keys, or a line sent as text:\n%s", n, out)
	}
}
