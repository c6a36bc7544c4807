package bridgetest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"

	"github.com/agentcall/acbridge/notice"
)

// Transcript is an Out writer that keeps what the bridge showed the person
// and lets a driver (the demo, tests) wait for a line to appear. It copies
// everything to W as well, if set.
type Transcript struct {
	W io.Writer

	mu      sync.Mutex
	buf     bytes.Buffer
	runs    int
	notices []notice.Notice // the last maxNotices
	changed chan struct{}
}

// maxNotices bounds the notices a Transcript keeps (a flooding agent).
const maxNotices = 4096

// Display records the notices and counts the agent's finished runs; use it
// as bridge.Options.Display.
func (t *Transcript) Display(n notice.Notice) {
	t.mu.Lock()
	if n.Kind == notice.RunDone {
		t.runs++
	}
	if len(t.notices) == maxNotices {
		t.notices = append(t.notices[:0], t.notices[maxNotices/2:]...)
	}
	t.notices = append(t.notices, n)
	t.signalLocked()
	t.mu.Unlock()
}

// WaitNotice blocks until n of the notices kept match, or ctx is done.
func (t *Transcript) WaitNotice(ctx context.Context, match func(notice.Notice) bool, n int) error {
	return t.wait(ctx, func() bool { return t.countLocked(match) >= n })
}

// CountNotices counts the notices kept that match.
func (t *Transcript) CountNotices(match func(notice.Notice) bool) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.countLocked(match)
}

func (t *Transcript) countLocked(match func(notice.Notice) bool) int {
	c := 0
	for _, n := range t.notices {
		if match(n) {
			c++
		}
	}
	return c
}

func (t *Transcript) signalLocked() {
	if t.changed != nil {
		close(t.changed)
		t.changed = nil
	}
}

func (t *Transcript) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf.Write(p)
	t.signalLocked()
	t.mu.Unlock()
	if t.W != nil {
		return t.W.Write(p)
	}
	return len(p), nil
}

// String returns everything written so far.
func (t *Transcript) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.buf.String()
}

// Wait blocks until sub has appeared at least n times, or ctx is done.
func (t *Transcript) Wait(ctx context.Context, sub string, n int) error {
	return t.wait(ctx, func() bool { return strings.Count(t.buf.String(), sub) >= n })
}

// WaitText blocks until done reports true of the text so far, or ctx is
// done. done runs under the transcript's lock and must not call its methods.
func (t *Transcript) WaitText(ctx context.Context, done func(text string) bool) error {
	return t.wait(ctx, func() bool { return done(t.buf.String()) })
}

// WaitRuns blocks until the agent has finished n runs, or ctx is done.
func (t *Transcript) WaitRuns(ctx context.Context, n int) error {
	return t.wait(ctx, func() bool { return t.runs >= n })
}

func (t *Transcript) wait(ctx context.Context, done func() bool) error {
	for {
		t.mu.Lock()
		if done() {
			t.mu.Unlock()
			return nil
		}
		if t.changed == nil {
			t.changed = make(chan struct{})
		}
		ch := t.changed
		t.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
