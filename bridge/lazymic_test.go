package bridge_test

import (
	"sync/atomic"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
)

// countingOpener resolves the test microphone as Devices.Mic and
// counts the calls; fail makes it report no microphone.
type countingOpener struct {
	calls atomic.Int32
	fail  atomic.Bool
	lazy  *audio.LazyMic
}

func (c *countingOpener) Open() (*audio.Mic, error) {
	c.calls.Add(1)
	if c.fail.Load() {
		return nil, audio.ErrNoMicrophone
	}
	return c.lazy.Open()
}

func lazyMicRig(t *testing.T, agentOpts *agent.Options, fail bool) (*rig, *countingOpener) {
	c := &countingOpener{lazy: audio.NewLazyMic(&audio.MicOptions{Device: audio.TestDevice})}
	c.fail.Store(fail)
	t.Cleanup(func() { c.lazy.Close() })
	r := newRig(t, func(r *rig) {
		r.agentOpts = agentOpts
		r.tune = func(o *bridge.Options) { o.Devices.Mic = c }
	})
	return r, c
}

// A session with a text agent never resolves the microphone: the sound
// system stays unloaded on a kiosk that does not carry voice.
func TestMicrophoneNotResolvedForTextAgents(t *testing.T) {
	r, c := lazyMicRig(t, nil, false)
	r.press(button.Scan)
	waitFor(t, r.out, "[reader armed", 1)
	if n := c.calls.Load(); n != 0 {
		t.Fatalf("the microphone was resolved %d times for a WebSocket agent", n)
	}
}

// The first WebRTC session resolves it, once, and voice works with it.
func TestMicrophoneResolvedByTheFirstVoiceSession(t *testing.T) {
	heard := newHeardPackets()
	r, c := lazyMicRig(t, &agent.Options{Transport: "webrtc", OnAudioPacket: heard.packet}, false)
	waitNotice(t, r.out, "the talk hint", hintFor(button.Talk), 1)
	if n := c.calls.Load(); n != 1 {
		t.Fatalf("resolved %d times, want 1", n)
	}
	mic, err := c.lazy.Open()
	if err != nil {
		t.Fatal(err)
	}
	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening", 1)
	heard.wait(t, "10 in the turn", func(in, _ int) bool { return in >= 10 })
	r.buttons.Release(button.Talk)
	waitFor(t, r.out, "[spoken]", 1)
	if mic.Stats().Runs != 1 {
		t.Fatalf("the resolved microphone ran %d times, want 1", mic.Stats().Runs)
	}
}

// A microphone that cannot be resolved leaves the session without voice,
// as no microphone configured does.
func TestMicrophoneThatCannotBeResolved(t *testing.T) {
	heard := newHeardPackets()
	r, c := lazyMicRig(t, &agent.Options{Transport: "webrtc", OnAudioPacket: heard.packet}, true)
	waitFor(t, r.out, "no microphone is configured", 1)
	if n := c.calls.Load(); n != 1 {
		t.Fatalf("resolved %d times, want 1", n)
	}
}

// A microphone that was not there for one session is looked for again by
// the next: one plugged in meanwhile works without a restart.
func TestMicrophoneFoundByALaterSession(t *testing.T) {
	heard := newHeardPackets()
	r, c := lazyMicRig(t, &agent.Options{Transport: "webrtc", OnAudioPacket: heard.packet}, true)
	waitFor(t, r.out, "no microphone is configured", 1)
	c.fail.Store(false) // plugged in
	r.stopAgent()
	r.serve(r.addr)
	waitFor(t, r.out, "[hold TALK to speak to the agent]", 1)
	if n := c.calls.Load(); n != 2 {
		t.Fatalf("resolved %d times, want 2 (one per session)", n)
	}
	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening", 1)
	heard.wait(t, "10 in the turn", func(in, _ int) bool { return in >= 10 })
	r.buttons.Release(button.Talk)
	waitFor(t, r.out, "[spoken]", 1)
}
