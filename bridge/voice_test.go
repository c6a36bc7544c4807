package bridge_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
)

// heardPackets counts the client audio packets the reference agent
// receives, inside explicit turns and outside them.
type heardPackets struct {
	mu             sync.Mutex
	inTurn, beside int
	changed        chan struct{} // a token after each packet, for wait
}

func newHeardPackets() *heardPackets { return &heardPackets{changed: make(chan struct{}, 1)} }

func (h *heardPackets) packet(turn int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if turn == 0 {
		h.beside++
	} else {
		h.inTurn++
	}
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// wait waits up to 10 s until the counts satisfy enough: the microphone's
// packets take their real time, which a busy machine stretches.
func (h *heardPackets) wait(t *testing.T, what string, enough func(inTurn, beside int) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if in, beside := h.counts(); enough(in, beside) {
			return
		}
		select {
		case <-h.changed:
		case <-deadline:
			in, beside := h.counts()
			t.Fatalf("the agent heard %d packets in turns and %d outside; want %s", in, beside, what)
		}
	}
}

func (h *heardPackets) counts() (inTurn, beside int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.inTurn, h.beside
}

// auditedPackets is bridgetest.AuditedPackets, failing t.
func auditedPackets(t *testing.T, log *bridgetest.Transcript, mode string, n int) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	p, err := bridgetest.AuditedPackets(ctx, log, mode, n)
	if err != nil {
		t.Fatalf("%v:\n%s", err, log.String())
	}
	return p
}

// voiceRig is a rig whose agent owns voice over WebRTC, with the test
// microphone, a recorded LED and a short engagement idle; onTurn, if set,
// receives the agent's explicit audio turns; more may change the
// microphone's options and set the bridge's Volume and Metrics.
func voiceRig(t *testing.T, explicit bool, idle time.Duration, onTurn func(agent.AudioTurn), more ...func(*audio.MicOptions, *bridge.Options)) (*rig, *heardPackets, *buttontest.Indicator) {
	heard := newHeardPackets()
	led := buttontest.NewIndicator()
	r := newRig(t, func(r *rig) {
		r.agentOpts = &agent.Options{Transport: "webrtc", NoExplicitTurns: !explicit, OnAudioPacket: heard.packet, OnAudioTurn: onTurn}
		r.clock, r.ticks = &testClock{}, make(chan time.Time)
		mo := &audio.MicOptions{Device: audio.TestDevice}
		var bo bridge.Options
		for _, f := range more {
			f(mo, &bo)
		}
		mic, err := audio.NewMic(mo)
		if err != nil {
			t.Fatal(err)
		}
		r.mic = mic
		r.tune = func(o *bridge.Options) {
			o.Devices.LED, o.Devices.Volume, o.Metrics = led, bo.Devices.Volume, bo.Metrics
			if idle > 0 {
				o.Policy.EngagementIdle = idle
			}
		}
	})
	return r, heard, led
}

// waitLight waits until the LED shows want.
func waitLight(t *testing.T, led *buttontest.Indicator, want button.Light) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for led.Light() != want {
		select {
		case <-led.Changed():
		case <-deadline:
			t.Fatalf("the LED is %v, want %v", led.Light(), want)
		}
	}
}

// With an agent without explicit turns the microphone stays closed until
// TALK is pressed, stays open across the release, and closes on the next
// press of TALK, on idle, on a long CANCEL and on the release of a long
// hold; each engagement is lit,
// shown and audited.
func TestEngagementOpensTheMicrophoneOnlyOnAPress(t *testing.T) {
	r, heard, led := voiceRig(t, false, 1500*time.Millisecond, nil)
	waitFor(t, r.out, "[press TALK to speak to the agent", 1)
	time.Sleep(1500 * time.Millisecond) // a window for a microphone opened without a press: no event marks its absence
	if in, beside := heard.counts(); in+beside != 0 || r.mic.Stats().Runs != 0 {
		t.Fatalf("before any press the agent got %d packets and the microphone ran %d times", in+beside, r.mic.Stats().Runs)
	}

	// TALK opens an engagement that outlives the release.
	r.press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 1)
	waitLight(t, led, button.LightOn)
	heard.wait(t, "20 in the engagement", func(_, beside int) bool { return beside >= 20 })
	if !r.mic.Running() {
		t.Fatal("the microphone stopped during the engagement")
	}
	// The next press ends it.
	r.press(button.Talk)
	waitFor(t, r.out, "[stopped listening]", 1)
	waitLight(t, led, button.LightOff)
	if r.mic.Running() {
		t.Fatal("the microphone runs after the engagement ended")
	}
	sent := auditedPackets(t, r.log, "engagement", 1)
	heard.wait(t, fmt.Sprintf("the %d sent in the engagement", sent), func(_, beside int) bool { return beside >= sent })
	_, ended := heard.counts()
	time.Sleep(time.Second) // a window for packets after the end: no event marks their absence
	if _, later := heard.counts(); later != ended {
		t.Fatalf("%d packets reached the agent after the engagement ended", later-ended)
	}

	// Idle: no run and no observation for engagement_idle.
	r.press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 2)
	r.clock.Advance(1500 * time.Millisecond)
	r.idleTick(t)
	waitFor(t, r.out, "[stopped listening: nothing happened", 1)
	waitLight(t, led, button.LightOff)

	// A long CANCEL ends it at once.
	r.press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 3)
	r.buttons.Tap(button.Cancel, true)
	waitFor(t, r.out, "[stopped listening: cancelled]", 1)
	waitLight(t, led, button.LightOff)
	if r.mic.Running() {
		t.Fatal("the microphone runs after a cancel")
	}

	// TALK held past a second: the release ends the engagement it opened.
	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 4)
	r.clock.Advance(1200 * time.Millisecond) // TALK held past a second
	if !r.mic.Running() {
		t.Fatal("the microphone stopped while TALK was held")
	}
	r.buttons.Release(button.Talk)
	waitFor(t, r.out, "[stopped listening]", 2)
	waitLight(t, led, button.LightOff)

	log := r.log.String()
	for _, reason := range []string{"reason=talk", "reason=idle", "reason=cancel", "reason=released"} {
		if !strings.Contains(log, "audit=microphone.engagement") || !strings.Contains(log, reason) {
			t.Errorf("no audit line with %s:\n%s", reason, log)
		}
	}
	if n := strings.Count(log, "audit=microphone.engagement"); n != 4 {
		t.Errorf("%d audit lines for 4 engagements", n)
	}
}

// A long CANCEL while TALK is held cancels the explicit turn: the
// microphone stops at once, the agent gets audio.turn.cancel and no packet
// after it, and the release commits nothing.
func TestCancelDuringPushToTalk(t *testing.T) {
	var mu sync.Mutex
	var turns []agent.AudioTurn
	r, heard, led := voiceRig(t, true, 0, func(a agent.AudioTurn) { mu.Lock(); turns = append(turns, a); mu.Unlock() })
	waitNotice(t, r.out, "the talk hint", hintFor(button.Talk), 1)
	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening: speak, then let go of TALK]", 1)
	waitLight(t, led, button.LightOn)
	heard.wait(t, "20 in the turn", func(in, _ int) bool { return in >= 20 })
	r.buttons.Tap(button.Cancel, true)
	waitFor(t, r.out, "[talk cancelled", 1)
	waitLight(t, led, button.LightOff)
	if r.mic.Running() {
		t.Fatal("the microphone runs after the cancel")
	}
	// Packets written before the cancel may still be on their way over
	// loopback (the agent counts those arriving after the cancel outside
	// a turn); what matters is that none is written after it.
	sent := auditedPackets(t, r.log, "turn", 1)
	heard.wait(t, fmt.Sprintf("the %d sent in the turn", sent), func(in, beside int) bool { return in+beside >= sent })
	in, beside := heard.counts()
	r.buttons.Release(button.Talk)
	time.Sleep(time.Second) // a window for packets after the cancel and the release: no event marks their absence
	in2, beside2 := heard.counts()
	t.Logf("turn packets %d; after the cancel: %d in a turn, %d outside", in, in2-in, beside2-beside)
	if in < 20 || in2 != in || beside2 != beside {
		t.Errorf("turn packets %d; after the cancel: %d in a turn, %d outside", in, in2-in, beside2-beside)
	}
	if strings.Contains(r.out.String(), "[spoken]") || strings.Contains(r.out.String(), "agent: Heard") {
		t.Errorf("the cancelled turn was committed:\n%s", r.out.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(turns) != 1 || turns[0].Committed {
		t.Errorf("the agent's turns: %+v", turns)
	}
	if !strings.Contains(r.log.String(), "audit=microphone.turn") || !strings.Contains(r.log.String(), "reason=cancel") {
		t.Errorf("no audit line for the cancelled turn:\n%s", r.log.String())
	}
}

// An agent run keeps an engagement open: engagement_idle counts from the
// agent's last event, not from the press.
func TestEngagementIdleCountsFromTheLastRun(t *testing.T) {
	// The test clock is the real clock moved on, so the real seconds a
	// loaded machine takes between two steps count too: each step leaves
	// 10 s of them before the idle limit.
	r, _, led := voiceRig(t, false, 30*time.Second, nil)
	waitFor(t, r.out, "[press TALK to speak to the agent", 1)
	r.press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 1)
	r.clock.Advance(20 * time.Second)
	r.idleTick(t)
	r.say("hello")
	waitRuns(t, r.out, 1)
	// Past engagement_idle from the press, well short of it from the run.
	r.clock.Advance(20 * time.Second)
	r.idleTick(t)
	r.idleTick(t) // the first check is done
	if strings.Contains(r.out.String(), "[stopped listening") || led.Light() != button.LightOn {
		t.Fatalf("the engagement ended although the agent answered 20 s ago:\n%s", r.out.String())
	}
	r.clock.Advance(20 * time.Second)
	r.idleTick(t)
	waitFor(t, r.out, "[stopped listening: nothing happened for 30s]", 1)
}

// The end of the session ends its engagement: the microphone closes, the
// LED goes off and the audit line says why.
func TestEngagementEndsWithTheSession(t *testing.T) {
	r, _, led := voiceRig(t, false, time.Minute, nil)
	waitFor(t, r.out, "[press TALK to speak to the agent", 1)
	r.press(button.Talk)
	waitFor(t, r.out, "[listening: speak to the agent", 1)
	r.stopAgent()
	waitFor(t, r.out, "[stopped listening: the session ended]", 1)
	waitFor(t, r.out, "[not connected", 1)
	waitLight(t, led, button.LightOff)
	if r.mic.Running() {
		t.Fatal("the microphone runs after the session ended")
	}
	if !strings.Contains(r.log.String(), `reason="session ended"`) {
		t.Errorf("no audit line for the engagement cut by the session's end:\n%s", r.log.String())
	}
}
