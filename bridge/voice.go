package bridge

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/notice"
)

// The microphone of a WebRTC session is open only while a person asked
// for it (docs/architecture.md principle 3). With explicit turns TALK is
// push-to-talk: held, a turn is open; released, it is committed. Without
// them the agent has no turn messages to go by, so a press of TALK opens
// an engagement that lasts until the next press of TALK, a long CANCEL,
// Policy.EngagementIdle without an agent run or an observation, or the
// end of the session. The LED and the display show "listening" for
// exactly the open turn or engagement, and the audit log gets one line for
// each.
//
// A TALK held for holdToTalk or longer that opened an engagement ends it
// when let go, so that hold-to-talk works with these agents too, and so
// do the terminal's and the kiosk page's toggles, whose second stroke is
// a release.

// holdToTalk is how long a press of TALK that opened an engagement must
// be held for its release to end it.
const holdToTalk = time.Second

// Why a turn or an engagement ended, as the audit line says it.
const (
	endReleased = "released"          // TALK let go: the turn committed, or a held engagement ended
	endTalk     = "talk"              // engagement: TALK pressed again
	endCancel   = "cancel"            // a long CANCEL
	endIdle     = "idle"              // Policy.EngagementIdle without a run or an observation
	endSession  = "session ended"     // the session ended under it
	endMic      = "microphone failed" // the device failed or went away
	endFailed   = "failed"            // push-to-talk: the commit did not go out
)

// voice is the microphone of one session; only the session's goroutine
// uses it.
type voice struct {
	c   *conv
	rtc *client.WebRTCTransport
	ptt *client.PushToTalk // explicit turns
	eng *client.Engagement // no explicit turns

	open   bool
	held   bool             // the press that opened the engagement is still down
	since  time.Time        // when the turn or engagement opened
	active time.Time        // last agent event or observation in an engagement
	sentAt int64            // the transport's packets sent when it opened
	tick   <-chan time.Time // an engagement's idle check; nil when none is open
	untick func()           // stops tick
}

// startVoice sets up the microphone of a WebRTC session, closed until a
// press of TALK.
func (c *conv) startVoice(rtc *client.WebRTCTransport) error {
	b := c.b
	if b.sessionMic() == nil {
		b.printAndDisplayInfo("this agent listens, but no microphone is configured")
		return nil
	}
	v := &voice{c: c, rtc: rtc}
	var err error
	hint := "hold TALK to speak to the agent"
	if c.s.ExplicitTurns() {
		v.ptt, err = client.NewPushToTalk(c.s, rtc)
	} else {
		v.eng, err = client.NewEngagement(c.s, rtc)
		hint = "press TALK to speak to the agent, and TALK again when you are done"
	}
	if err != nil {
		return err
	}
	c.voice = v
	b.printAndDisplay(notice.Notice{Kind: notice.Hint, Control: button.Talk, Text: hint})
	return nil
}

// talk handles the TALK control.
func (c *conv) talk(ctx context.Context, ev button.Event) {
	v := c.voice
	if v == nil {
		if ev.Pressed && !ev.Long {
			c.b.refuse(button.Talk, "talk needs an agent that owns voice over WebRTC, and a microphone")
		}
		return
	}
	switch {
	case ev.Long:
	case v.ptt != nil && ev.Pressed:
		v.press(ctx)
	case v.ptt != nil:
		v.release(ctx)
	case !ev.Pressed:
		// An engagement outlives a short press: it ends on the next one.
		if v.open && v.held && c.b.o.Now().Sub(v.since) >= holdToTalk {
			v.end(ctx, endReleased)
		}
		v.held = false
	case v.open:
		v.end(ctx, endTalk)
	default:
		v.engage(ctx)
	}
}

// press opens a push-to-talk turn.
func (v *voice) press(ctx context.Context) {
	if _, err := v.ptt.Press(ctx); err != nil {
		v.c.b.printAndDisplayInfo("cannot talk now: %v", err)
		return
	}
	v.opened()
	v.c.b.printAndDisplay(notice.Notice{Kind: notice.Armed, Control: button.Talk, Text: "listening: speak, then let go of TALK"})
}

// release commits the open push-to-talk turn.
func (v *voice) release(ctx context.Context) {
	if _, open := v.ptt.Open(); !open {
		return
	}
	if _, err := v.ptt.Release(ctx); err != nil {
		v.closed(endFailed)
		v.c.b.printAndDisplay(notice.Notice{Kind: notice.Disarmed, Control: button.Talk, Text: fmt.Sprintf("talk: %v", err)})
		return
	}
	v.closed(endReleased)
	v.c.b.printAndDisplay(notice.Notice{Kind: notice.Sent, Control: button.Talk, Text: "spoken"})
}

// engage opens an engagement.
func (v *voice) engage(ctx context.Context) {
	b := v.c.b
	if err := v.eng.Start(ctx); err != nil {
		b.printAndDisplayInfo("cannot listen now: %v", err)
		return
	}
	v.opened()
	v.held = true
	if b.o.engagementTicks != nil {
		v.tick, v.untick = b.o.engagementTicks, func() {}
	} else {
		t := time.NewTicker(min(max(b.o.Policy.EngagementIdle/4, 10*time.Millisecond), time.Second))
		v.tick, v.untick = t.C, t.Stop
	}
	b.printAndDisplay(notice.Notice{Kind: notice.Armed, Control: button.Talk, Text: "listening: speak to the agent; press TALK again when you are done"})
}

// end closes the open turn or engagement for why. Audio of a cancelled or
// cut one is dropped; an engagement that ends normally delivers what it
// recorded up to now.
func (v *voice) end(ctx context.Context, why string) {
	if !v.open {
		return
	}
	b := v.c.b
	var err error
	switch {
	case v.ptt != nil:
		// A cut turn is cancelled too, so that the agent drops it.
		err = v.ptt.Cancel(ctx)
	case why == endTalk || why == endIdle || why == endReleased:
		_, err = v.eng.Stop(ctx)
	default:
		_, err = v.eng.Cancel()
	}
	if err != nil && why != endSession {
		b.log.Warn("microphone stop", "why", why, "err", err)
	}
	v.closed(why)
	text := map[string]string{
		endTalk:     "stopped listening",
		endReleased: "stopped listening",
		endIdle:     "stopped listening: nothing happened for " + b.o.Policy.EngagementIdle.Round(time.Second).String(),
		endCancel:   "stopped listening: cancelled",
		endSession:  "stopped listening: the session ended",
		endMic:      "stopped listening: the microphone failed",
	}[why]
	if v.ptt != nil && why == endCancel {
		text = "talk cancelled: nothing more is sent, and the agent drops this turn"
	}
	b.printAndDisplay(notice.Notice{Kind: notice.Disarmed, Control: button.Talk, Text: text})
}

func (v *voice) opened() {
	b := v.c.b
	// Push-to-talk mutes or lowers the agent while the person speaks; an
	// engagement is a conversation both ways, which needs the echo
	// canceller instead, or ducking without one.
	if v.ptt != nil || !b.sessionMic().CancelsEcho() {
		b.o.Devices.Volume.Duck(true)
	}
	v.open = true
	v.since = v.c.b.o.Now()
	v.active = v.since
	v.sentAt = v.rtc.Stats().PacketsSent
	v.c.b.led.listen(true)
}

// closed records the end of the open turn or engagement: the LED, and the
// audit line.
func (v *voice) closed(why string) {
	v.open = false
	v.c.b.o.Devices.Volume.Duck(false)
	if v.tick != nil {
		v.untick()
		v.tick = nil
	}
	b := v.c.b
	b.led.listen(false)
	mode := "engagement"
	if v.ptt != nil {
		mode = "turn"
	}
	now := b.o.Now()
	b.audit.Info("microphone closed",
		slog.String("audit", "microphone."+mode),
		slog.String("agent", v.c.origin),
		slog.String("started", v.since.UTC().Format(time.RFC3339Nano)),
		slog.String("ended", now.UTC().Format(time.RFC3339Nano)),
		slog.Duration("duration", now.Sub(v.since).Round(time.Millisecond)),
		slog.String("reason", why),
		slog.Int64("packets", v.rtc.Stats().PacketsSent-v.sentAt))
}

// voiceTick is the open engagement's idle check, nil when none is open.
func (c *conv) voiceTick() <-chan time.Time {
	if c.voice == nil || c.voice.tick == nil {
		return nil
	}
	return c.voice.tick
}

// idleCheck ends an engagement that has seen no agent run and no
// observation for Policy.EngagementIdle, or whose microphone stopped. now
// is the tick's time, not the clock read here: a check judges the moment
// it was due, so that a test's clock moved on meanwhile does not change
// its verdict.
func (c *conv) idleCheck(ctx context.Context, now time.Time) {
	v := c.voice
	if v == nil || !v.open || v.eng == nil {
		return
	}
	switch {
	case !v.eng.Capturing():
		v.end(ctx, endMic)
	case c.s.Busy() || c.collecting != "":
		v.active = now
	case now.Sub(v.active) >= c.b.o.Policy.EngagementIdle:
		v.end(ctx, endIdle)
	}
}

// listening reports whether a turn or an engagement is open.
func (c *conv) listening() bool { return c.voice != nil && c.voice.open }

// voiceActivity notes an agent event: an engagement stays open while the
// agent runs.
func (c *conv) voiceActivity() {
	if c.voice != nil && c.voice.open {
		c.voice.active = c.b.o.Now()
	}
}

// endVoice closes an open turn or engagement for why; without one it does
// nothing.
func (c *conv) endVoice(ctx context.Context, why string) {
	if c.voice != nil {
		c.voice.end(ctx, why)
	}
}

// closeVoice ends an open turn or engagement when the session has ended,
// within a bound: the connection may be gone.
func (c *conv) closeVoice() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	c.endVoice(ctx, endSession)
}

// listenLED shows the microphone on the LED: lit while a turn or an
// engagement is open, whatever collections and requests ask of it
// meanwhile, which it shows again afterwards.
type listenLED struct {
	button.Indicator
	mu        sync.Mutex
	want      button.Light
	listening bool
}

func (l *listenLED) Set(x button.Light) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.want = x
	return l.apply()
}

func (l *listenLED) listen(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.listening != on {
		l.listening = on
		_ = l.apply()
	}
}

func (l *listenLED) apply() error {
	x := l.want
	if l.listening {
		x = button.LightOn
	}
	return l.Indicator.Set(x)
}
