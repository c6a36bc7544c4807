package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button/evdev"
)

var (
	keyT, _ = evdev.ParseKey("KEY_T")
	keyC, _ = evdev.ParseKey("KEY_C")
)

// voiceConfig adds the test microphone, TALK on KEY_T and CANCEL on KEY_C
// (long after 300 ms) to startDaemon's configuration.
func voiceConfig(dir string, more ...string) []string {
	fifo := dir + "/keys"
	return []string{`
[audio]
microphone = "AudioTest"
` + strings.Join(more, "\n") + `
[[button]]
control = "talk"
source = "evdev"
device = "` + fifo + `"
key = "KEY_T"
[[button]]
control = "cancel"
source = "evdev"
device = "` + fifo + `"
key = "KEY_C"
long_press = "300ms"
`}
}

// key writes one key change to the daemon's evdev FIFO.
func (d *daemonProc) key(code uint16, down bool) {
	d.t.Helper()
	if _, err := d.keys.Write(evdev.AppendKey(nil, time.Now(), code, down)); err != nil {
		d.t.Fatal(err)
	}
}

// agentPackets counts the client audio packets the agent receives: inside
// explicit turns, outside them, and outside them after the first packet of
// a turn. (Outside before it is the turn's start overtaken by its first
// packet: RTP and the data channel are separate paths.)
type agentPackets struct {
	mu                     sync.Mutex
	outside, inside, after int
	turns                  []agent.AudioTurn
	changed                chan struct{} // a token after each packet, for wait
}

func newAgentPackets() *agentPackets { return &agentPackets{changed: make(chan struct{}, 1)} }

// wait waits up to 20 s until the counts satisfy enough: the microphone's
// packets take their real time, which a busy machine stretches.
func (a *agentPackets) wait(t *testing.T, what string, enough func(outside, inside int) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		outside, inside := a.count()
		if enough(outside, inside) {
			return
		}
		select {
		case <-a.changed:
		case <-deadline:
			t.Fatalf("the agent received %d packets outside turns and %d inside; want %s", outside, inside, what)
		}
	}
}

func (a *agentPackets) packet(turn int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	defer func() {
		select {
		case a.changed <- struct{}{}:
		default:
		}
	}()
	switch {
	case turn != 0:
		a.inside++
	case a.inside > 0:
		a.after++
		a.outside++
	default:
		a.outside++
	}
}

func (a *agentPackets) turn(t agent.AudioTurn) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.turns = append(a.turns, t)
}

// count returns the packets outside turns and inside any.
func (a *agentPackets) count() (outside, inside int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.outside, a.inside
}

// `acbridge run` with a WebRTC agent whose card does not set
// supportsExplicitTurns: no microphone packet reaches the agent without a
// press of TALK; a press opens an engagement that streams until the next
// press, or until engagement_idle passes without a run or an observation;
// each engagement gets an audit line.
func TestRunDaemonMicrophoneOnlyInAnEngagement(t *testing.T) {
	dir := t.TempDir()
	heard := newAgentPackets()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{},
		opts: &agent.Options{Transport: "webrtc", NoExplicitTurns: true, OnAudioPacket: heard.packet}}
	ag.start()
	defer ag.stop()
	d := startDaemon(t, dir, ag.addr, voiceConfig(dir, `engagement_idle = "4s"`)...)
	d.wait(d.out, "[press TALK to speak to the agent", 1)

	// ~7 s of a session with no press: nothing leaves the microphone.
	time.Sleep(7 * time.Second) // the span watched: no event marks packets' absence
	outside, _ := heard.count()
	t.Logf("packets the agent received in ~7 s without a press: %d", outside)
	if outside != 0 {
		t.Fatalf("%d microphone packets reached the agent without a press", outside)
	}

	// A press opens an engagement, which outlives the key's release.
	d.press(keyT)
	d.wait(d.out, "[listening: speak to the agent", 1)
	heard.wait(t, "40 in the engagement (~2 s)", func(outside, _ int) bool { return outside >= 40 })
	d.press(keyT)
	d.wait(d.out, "[stopped listening]", 1)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	sent, err := bridgetest.AuditedPackets(ctx, d.err, "engagement", 1)
	if err != nil {
		t.Fatalf("%v:\n%s", err, d.err.String())
	}
	heard.wait(t, fmt.Sprintf("the %d sent in the engagement", sent), func(outside, _ int) bool { return outside >= sent })
	ended, _ := heard.count()
	time.Sleep(2 * time.Second) // a window for packets after the end: no event marks their absence
	if later, _ := heard.count(); later != ended {
		t.Fatalf("%d packets reached the agent after the engagement ended", later-ended)
	}

	// Nothing happens for engagement_idle: the engagement ends by itself.
	d.press(keyT)
	d.wait(d.out, "[listening: speak to the agent", 2)
	d.wait(d.out, "[stopped listening: nothing happened for 4s]", 1)

	d.wait(d.err, "reason=talk", 1)
	d.wait(d.err, "reason=idle", 1)
	if n := strings.Count(d.err.String(), "audit=microphone.engagement"); n != 2 {
		t.Errorf("%d audit lines for 2 engagements:\n%s", n, d.err.String())
	}
}

// `acbridge run` with push-to-talk (explicit turns): a long CANCEL while
// TALK is held sends audio.turn.cancel and stops the microphone at once;
// no packet reaches the agent after it, and the release commits nothing.
func TestRunDaemonCancelDuringTalk(t *testing.T) {
	dir := t.TempDir()
	heard := newAgentPackets()
	ag := &procAgent{t: t, log: &bridgetest.Transcript{},
		opts: &agent.Options{Transport: "webrtc", OnAudioPacket: heard.packet, OnAudioTurn: heard.turn}}
	ag.start()
	defer ag.stop()
	d := startDaemon(t, dir, ag.addr, voiceConfig(dir)...)
	d.wait(d.out, "[hold TALK to speak to the agent]", 1)

	d.key(keyT, true)
	d.wait(d.out, "[listening: speak, then let go of TALK]", 1)
	heard.wait(t, "20 in the turn", func(_, inside int) bool { return inside >= 20 })
	d.key(keyC, true)
	d.wait(d.out, "[talk cancelled", 1)
	d.key(keyC, false) // CANCEL released, TALK still held: the FIFO keeps the order
	d.key(keyT, false)
	time.Sleep(1500 * time.Millisecond) // a window for a wrong commit or packets: no event marks their absence

	heard.mu.Lock()
	inside, after, turns := heard.inside, heard.after, heard.turns
	heard.mu.Unlock()
	t.Logf("packets in the cancelled turn: %d; packets after the cancel: %d", inside, after)
	if inside < 20 {
		t.Fatalf("the turn delivered %d packets before the cancel", inside)
	}
	if after != 0 {
		t.Errorf("%d packets reached the agent after the cancel", after)
	}
	if len(turns) != 1 || turns[0].Committed {
		t.Errorf("the agent's audio turns: %+v", turns)
	}
	if strings.Contains(d.out.String(), "[spoken]") || strings.Contains(d.out.String(), "agent: Heard") {
		t.Errorf("the cancelled turn was committed:\n%s", d.out.String())
	}
	if !strings.Contains(ag.log.String(), "committed=false") {
		t.Errorf("the agent logged no cancelled turn:\n%s", ag.log.String())
	}
	d.wait(d.err, "audit=microphone.turn", 1)
	d.wait(d.err, "reason=cancel", 1)
}
