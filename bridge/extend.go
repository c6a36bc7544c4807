package bridge

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/notice"
)

// The reader's armed window is a time limit the visitor did not choose:
// a press of SCAN while the reader waits gives it the window again (EN 301
// 549 / WCAG 2.2.1, time limits can be extended with a simple action),
// up to maxExtensions times, so that a stuck button cannot keep the reader
// on for ever. A request the agent made has no deadline in the contract,
// so there is nothing of its own to extend.
const maxExtensions = 3

// errWindowEnded is the cause of a scan's context when its window ran out.
var errWindowEnded = errors.New("the armed window ended")

// scanWindow is one scan's extendable window. Only the bridge's loop
// goroutine calls extend; the timer's function only cancels.
type scanWindow struct {
	d     time.Duration
	timer *time.Timer
	left  int
}

// armScan returns ctx ending with errWindowEnded after d unless extended.
func armScan(ctx context.Context, d time.Duration) (context.Context, *scanWindow) {
	wctx, cancel := context.WithCancelCause(ctx)
	w := &scanWindow{d: d, left: maxExtensions}
	w.timer = time.AfterFunc(d, func() { cancel(errWindowEnded) })
	context.AfterFunc(ctx, func() { w.timer.Stop() })
	return wctx, w
}

// longest is the window a reader is given: the scan's context ends it.
func (w *scanWindow) longest() time.Duration { return w.d * (maxExtensions + 1) }

// extend starts the window again; it reports false when the extensions
// are used up or the window already ended.
func (w *scanWindow) extend() bool {
	if w.left == 0 || !w.timer.Stop() {
		return false
	}
	w.left--
	w.timer.Reset(w.d)
	return true
}

// ended maps the end of an unextended window to the reader's own
// ErrNoTag, so that it reads like a window the reader timed itself.
func ended(wctx context.Context, err error) error {
	if err != nil && errors.Is(context.Cause(wctx), errWindowEnded) {
		return nfc.ErrNoTag
	}
	return err
}

// extendScan answers a press of SCAN while the reader waits.
func (c *conv) extendScan() {
	b := c.b
	if c.window == nil || !c.window.extend() {
		b.refuse(button.Scan, "the reader's time cannot be extended again: tap a tag now, or press SCAN once it stops")
		return
	}
	b.printAndDisplay(notice.Notice{Kind: notice.Armed, Control: button.Scan,
		Text: fmt.Sprintf("reader armed for %s more: tap a tag", b.o.Policy.Window.Round(time.Second))})
}
