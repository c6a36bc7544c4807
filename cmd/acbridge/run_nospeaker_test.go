package main

import (
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// On a kiosk without a speaker, an agent's voice makes the daemon say
// "no speaker" once, and nothing of the sound libraries' own output
// reaches its stderr (alsa-lib wrote about thirty lines per attempt).
// The talk control here is a terminal key typed on --stdin-text.
func TestRunNoSpeakerSaysSoOnce(t *testing.T) {
	if spk, err := audio.Speakers(); err == nil && len(spk) > 0 {
		t.Skip("this machine has a speaker")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	agentLog := &bridgetest.Transcript{}
	ag, err := agent.New(&agent.Options{Transport: "webrtc", Logger: slog.New(slog.NewTextHandler(agentLog, nil))})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: ag}
	go srv.Serve(ln)
	defer func() { srv.Close(); ag.Close() }()

	d := startDaemon(t, t.TempDir(), ln.Addr().String(),
		"[audio]", `microphone = "`+audio.TestDevice+`"`,
		"[[button]]", `control = "talk"`, `source = "terminal"`, `char = "t"`)
	d.wait(d.out, "[hold TALK", 1)
	for turn := 1; turn <= 2; turn++ {
		d.say("t")
		d.wait(d.out, "[listening", turn)
		d.say("t")
		d.wait(d.out, "agent: Heard ", turn)
		d.wait(d.err, "no speaker", 1)
		// The agent's run ends after its voice (600 ms); a talk press
		// before that is refused.
		d.wait(d.err, "agent answered", turn)
	}
	errs := d.err.String()
	if n := strings.Count(errs, `msg="no speaker`); n != 1 {
		t.Errorf(`"no speaker" said %d times, want once:\n%s`, n, errs)
	}
	if strings.Contains(errs, "ALSA lib") {
		t.Errorf("alsa-lib's own lines reached stderr:\n%s", errs)
	}
}
