package bridge

import (
	"time"

	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/notice"
)

// lastingTold is what was said about a refusal no retry can fix (the
// network policy refuses the agent's address, its certificate is from an
// unknown authority or for another name), so that the retries at the
// backoff ceiling say nothing new until something changes.
type lastingTold struct {
	w   *health.Warnable // the problem on screen; nil: none
	why string           // the status line's reason
}

// tellLasting reports a lasting refusal: once on the screen, in the
// person's words (no address: the kiosk's LAN is nobody's business at the
// counter), and in the status line and the log in the operator's, with
// the setting that fixes it. A retry that fails the same way adds nothing:
// a "retrying in" line every minute would look like progress.
func (b *Bridge) tellLasting(told *lastingTold, w *health.Warnable, err error, delay time.Duration) {
	why := why(err)
	if why != told.why {
		told.why = why
		b.state(State{Err: err})
		b.log.Warn("agent refused by this kiosk's policy: no retry fixes this; retrying at the backoff ceiling", "err", err, "problem", w.Code, "in", delay.Round(time.Millisecond))
	} else {
		b.log.Debug("agent refused again by this kiosk's policy", "problem", w.Code, "in", delay.Round(time.Millisecond))
	}
	if w != told.w {
		told.w = w
		b.printAndDisplay(notice.Notice{Kind: notice.Disconnected, Text: w.Person, Code: w.Code})
	}
}
