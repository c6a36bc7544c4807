package bridge_test

import (
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
)

// checkDucked checks the speaker's ducking once the notice of the change
// has been seen: the bridge ducks or restores the speaker before it shows
// that notice, on the same goroutine, so the notice is the event to wait
// for.
func checkDucked(t *testing.T, v *audio.Volume, want bool) {
	t.Helper()
	if v.Ducked() != want {
		t.Fatalf("the speaker's ducking is %v, want %v", v.Ducked(), want)
	}
}

func newVolume(t *testing.T) *audio.Volume {
	v, err := audio.NewVolume(100, audio.MuteDB)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Push-to-talk ducks the speaker exactly while TALK is held: restored on
// the release, and on a cancel.
func TestPushToTalkDucksTheSpeaker(t *testing.T) {
	vol := newVolume(t)
	r, heard, _ := voiceRig(t, true, 0, nil, func(_ *audio.MicOptions, o *bridge.Options) { o.Devices.Volume = vol })
	waitFor(t, r.out, "[hold TALK to speak to the agent]", 1)
	if vol.Ducked() {
		t.Fatal("ducked before any press")
	}
	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening: speak, then let go of TALK]", 1)
	checkDucked(t, vol, true)
	heard.wait(t, "10 in the turn", func(in, _ int) bool { return in >= 10 }) // something to say
	r.buttons.Release(button.Talk)
	waitFor(t, r.out, "[spoken]", 1)
	checkDucked(t, vol, false)
	waitFor(t, r.out, "agent: Heard", 1)
	waitRuns(t, r.out, 1)

	r.buttons.Press(button.Talk)
	waitFor(t, r.out, "[listening: speak, then let go of TALK]", 2)
	checkDucked(t, vol, true)
	r.buttons.Tap(button.Cancel, true)
	waitFor(t, r.out, "[talk cancelled", 1)
	checkDucked(t, vol, false)
	r.buttons.Release(button.Talk)
}

// An engagement is a two-way conversation: with an echo canceller on the
// microphone the agent keeps its voice; without one it is ducked like
// push-to-talk.
func TestEngagementDucksOnlyWithoutEchoCancellation(t *testing.T) {
	for _, cancel := range []bool{true, false} {
		vol := newVolume(t)
		var p *audio.Processor
		if cancel {
			var err error
			if p, err = audio.NewProcessor(&audio.EchoOptions{Cancel: true}); err != nil {
				t.Fatal(err)
			}
		}
		r, heard, _ := voiceRig(t, false, time.Minute, nil, func(m *audio.MicOptions, o *bridge.Options) { m.Echo, o.Devices.Volume = p, vol })
		waitFor(t, r.out, "[press TALK to speak to the agent", 1)
		r.press(button.Talk)
		waitFor(t, r.out, "[listening: speak to the agent", 1)
		// The volume is set as the engagement opens; its packets flowing
		// show it open.
		heard.wait(t, "10 in the engagement", func(_, beside int) bool { return beside >= 10 })
		if vol.Ducked() == cancel {
			t.Errorf("echo cancellation %v: ducked %v during the engagement", cancel, vol.Ducked())
		}
		r.press(button.Talk)
		waitFor(t, r.out, "[stopped listening]", 1)
		checkDucked(t, vol, false)
		r.stop()
		if p != nil {
			p.Close()
		}
	}
}
