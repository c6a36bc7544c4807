package bridge

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// maxSpokenText bounds the run text kept for local TTS: the agent decides
// how much it sends, the kiosk how much it reads out.
const maxSpokenText = 4096

// agentRun is what the bridge keeps of the agent's current run: counts for
// one log line per run, and the text only when it will be spoken.
type agentRun struct {
	open          bool
	deltas, chars int
	text          strings.Builder // for TTS when no speech.segment came
	spoke         bool
}

func (c *conv) runStarted() {
	c.run.text.Reset()
	c.run = agentRun{open: true}
}

func (c *conv) delta(text string) {
	c.run.deltas++
	c.run.chars += len(text)
	if !c.speakText || c.b.o.Speak == nil {
		return
	}
	if room := maxSpokenText - c.run.text.Len(); room > 0 {
		c.run.text.WriteString(clipUTF8(text, room))
	}
}

func (c *conv) runCompleted() {
	if c.run.deltas > 0 {
		c.b.log.Info("agent answered", "deltas", c.run.deltas, "chars", c.run.chars)
	}
	if c.speakText && !c.run.spoke {
		c.speak("text.delta text", c.run.text.String())
	}
	c.run.text.Reset()
	c.run = agentRun{}
}

// runCutOff logs a run the session's end interrupted.
func (c *conv) runCutOff() {
	if c.run.open {
		c.b.log.Info("agent run cut off by the session's end", "deltas", c.run.deltas, "chars", c.run.chars)
	}
	c.run.text.Reset()
	c.run = agentRun{}
}

// clipUTF8 returns at most n bytes of s, not splitting a character.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// agentRunWatch guards the kiosk against an agent that stops answering: a run
// with no event for RunTimeout gets response.cancel; a run still open
// CancelGrace after a response.cancel (the watch's or the person's) ends
// the session.
type agentRunWatch struct {
	busy     bool      // a run was active or awaited at the last check
	last     time.Time // the agent's last event, or when the run was asked for
	cancelAt time.Time // response.cancel sent for this run; zero: not yet
}

func (w *agentRunWatch) alive(now time.Time) { w.last = now }

// errUnresponsive ends a session whose agent did not end a cancelled run.
var errUnresponsive = errors.New("the agent did not end its answer after a cancel")

// watchTick is how often the watch looks: often enough to act within a
// fraction of the shorter bound.
func (b *Bridge) watchTick() time.Duration {
	d := min(b.o.Policy.RunTimeout, b.o.Policy.CancelGrace) / 5
	return min(max(d, 20*time.Millisecond), time.Second)
}

// checkRun applies the run timeout and the cancel grace.
func (c *conv) checkRun(ctx context.Context) error {
	b, w, now := c.b, &c.watch, c.b.o.Now()
	if !c.s.Busy() {
		*w = agentRunWatch{}
		return nil
	}
	if !w.busy {
		w.busy, w.last = true, now
	}
	if !w.cancelAt.IsZero() {
		if now.Sub(w.cancelAt) < b.o.Policy.CancelGrace {
			return nil
		}
		b.log.Warn("the agent did not end a cancelled run; ending the session", "grace", b.o.Policy.CancelGrace)
		ectx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := c.s.End(ectx); err != nil {
			b.log.Warn("session.end not sent", "err", err)
		}
		return fmt.Errorf("%w within %s", errUnresponsive, b.o.Policy.CancelGrace)
	}
	if h := b.heard(); h.After(w.last) {
		w.last = h // the agent is speaking its answer
	}
	if _, pending := c.s.Pending(); pending || c.collecting != "" {
		// The agent waits for the person, not the other way round.
		w.last = now
		return nil
	}
	if now.Sub(w.last) < b.o.Policy.RunTimeout {
		return nil
	}
	b.log.Warn("the agent sent nothing for the run timeout; cancelling the run", "timeout", b.o.Policy.RunTimeout)
	b.printAndDisplayInfo("the agent has not answered for %s: cancelling", b.o.Policy.RunTimeout)
	if err := c.cancelRun(ctx); err != nil {
		b.log.Warn("cancel not sent", "err", err)
	}
	return nil
}

// cancelRun sends response.cancel and starts the grace for an open run.
func (c *conv) cancelRun(ctx context.Context) error {
	if err := c.s.Cancel(ctx); err != nil {
		return err
	}
	if c.s.Busy() && c.watch.cancelAt.IsZero() {
		c.watch.busy, c.watch.cancelAt = true, c.b.o.Now()
	}
	return nil
}

// cancel is a long CANCEL: the running collection is disarmed at once (the
// reader's window closes, the camera is let go) and the agent's run is
// cancelled, freeing the kiosk within the cancel grace at worst.
func (c *conv) cancel(ctx context.Context) {
	if c.stopCollect != nil {
		c.stopCollect()
		c.disarmed = true
	}
	if err := c.cancelRun(ctx); err != nil {
		c.b.log.Warn("cancel not sent", "err", err)
		return
	}
	c.b.printAndDisplayInfo("cancelled")
}

// ended reports whether the session has ended though its events are not
// all read yet: input then is refused, not started on a dead session.
func (c *conv) ended() bool {
	select {
	case <-c.s.Done():
		return true
	default:
		return false
	}
}

// collectCancelled releases the finished collection's context and reports
// whether a CANCEL disarmed it.
func (c *conv) collectCancelled() bool {
	if c.stopCollect == nil {
		return false
	}
	c.stopCollect()
	c.stopCollect = nil
	disarmed := c.disarmed
	c.disarmed = false
	return disarmed
}
