package nfc

import (
	"context"
	"time"
)

// supervise owns the timers: it ends windows when they expire and reports
// status changes through OnState once they have been stable for Debounce,
// so that a pcscd restart or a reader re-listing does not flap the display.
func (d *Dev) supervise(ctx context.Context) {
	var (
		last, pending Status
		reported      bool
		debounce      *time.Timer
		expiry        *time.Timer
		debounceC     <-chan time.Time
		expiryC       <-chan time.Time
	)
	defer func() {
		if debounce != nil {
			debounce.Stop()
		}
		if expiry != nil {
			expiry.Stop()
		}
	}()
	arm := func(t **time.Timer, c *<-chan time.Time, after time.Duration) {
		if *t == nil {
			*t = time.NewTimer(after)
		} else {
			(*t).Reset(after)
		}
		*c = (*t).C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.kick:
		case <-expiryC:
			expiryC = nil
			d.mu.Lock()
			if d.armed && !time.Now().Before(d.until) {
				d.endWindowLocked()
				d.log.Info("nfc: armed window ended without a tag")
			}
			d.mu.Unlock()
		case <-debounceC:
			debounceC = nil
			if !reported || !pending.equal(last) {
				last, reported = pending, true
				d.opts.OnState(pending)
			}
			continue
		}

		d.mu.Lock()
		st, armed, left := d.statusLocked(), d.armed, d.until.Sub(time.Now())
		d.mu.Unlock()
		if armed {
			arm(&expiry, &expiryC, max(left, 0))
		} else if expiryC != nil {
			expiry.Stop()
			expiryC = nil
		}

		if d.opts.OnState == nil {
			continue
		}
		pending = st
		switch {
		case reported && pending.equal(last):
			if debounceC != nil {
				debounce.Stop()
				debounceC = nil
			}
		case d.opts.Debounce < 0:
			last, reported = pending, true
			d.opts.OnState(pending)
		default:
			arm(&debounce, &debounceC, d.opts.Debounce)
		}
	}
}

// waker gets the loop to re-evaluate after Arm, and to notice ctx, by
// cancelling its blocking SCardGetStatusChange.
func (d *Dev) waker(ctx context.Context, loopDone <-chan struct{}) {
	for {
		select {
		case <-loopDone:
			return
		case <-ctx.Done():
			d.interrupt(nil, loopDone)
			return
		case <-d.wakeReq:
			d.mu.Lock()
			ch := d.evalCh
			d.mu.Unlock()
			d.interrupt(ch, loopDone)
		}
	}
}

// interrupt cancels the loop's wait until it has evaluated again (evaluated
// closed) or exited. SCardCancel is lost when it lands between the loop's
// evaluation and its entering the wait, hence the retries; they use the real
// clock because they pace a race with pcsc-lite, not a user-visible timer.
func (d *Dev) interrupt(evaluated, loopDone <-chan struct{}) {
	delay := time.Millisecond
	for {
		d.cancelWait()
		t := time.NewTimer(delay)
		select {
		case <-evaluated:
		case <-loopDone:
		case <-t.C:
			delay = min(2*delay, 100*time.Millisecond)
			continue
		}
		t.Stop()
		return
	}
}

func (d *Dev) cancelWait() {
	d.scMu.Lock()
	defer d.scMu.Unlock()
	if d.sc != nil && d.waiting.Load() {
		_ = d.sc.Cancel() // fails only if the context is already gone, which ends the wait too
	}
}
