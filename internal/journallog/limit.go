package journallog

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/internal/ratelimit"
)

// Defaults of LimitOptions: far below journald's default per-unit limit
// (10,000 messages in 30 s), so that the daemon's own log can never use up
// the budget that the audit lines share with it.
const (
	DefaultBurst = 200
	DefaultRate  = 20.0 // records per second
)

// LimitOptions bounds a log's rate; zero values mean the defaults.
type LimitOptions struct {
	// Burst records pass at once; then Rate a second.
	Burst int
	Rate  float64
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// limiter is shared by a Limit handler and everything derived from it by
// WithAttrs/WithGroup: one budget for the whole log.
type limiter struct {
	now func() time.Time

	mu         sync.Mutex
	b          ratelimit.Bucket
	suppressed int
}

// take reports whether a record may pass and how many were dropped since
// the last one that did.
func (l *limiter) take() (ok bool, dropped int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.b.Take(l.now()) {
		l.suppressed++
		return false, 0
	}
	dropped, l.suppressed = l.suppressed, 0
	return true, dropped
}

// LimitHandler drops records beyond a rate and says how many it dropped on
// the next record it lets through. It is for the daemon's general log,
// whatever a peer manages to make it say; the privacy audit must not go
// through one (see Unlimited).
type LimitHandler struct {
	next slog.Handler
	base slog.Handler // next before any WithAttrs/WithGroup, for the summary
	l    *limiter
}

// Limit wraps h; o may be nil.
func Limit(h slog.Handler, o *LimitOptions) *LimitHandler {
	if o == nil {
		o = &LimitOptions{}
	}
	burst, rate := float64(o.Burst), o.Rate
	if burst <= 0 {
		burst = DefaultBurst
	}
	if rate <= 0 {
		rate = DefaultRate
	}
	l := &limiter{now: o.Now, b: ratelimit.New(burst, rate)}
	if l.now == nil {
		l.now = time.Now
	}
	return &LimitHandler{next: h, base: h, l: l}
}

// Unlimited returns the handler Limit wrapped, for a log that must never be
// dropped (the privacy audit when it is not sent to the journal directly).
func (h *LimitHandler) Unlimited() slog.Handler { return h.next }

func (h *LimitHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return h.next.Enabled(ctx, l)
}

func (h *LimitHandler) Handle(ctx context.Context, r slog.Record) error {
	ok, dropped := h.l.take()
	if !ok {
		return nil
	}
	if dropped > 0 {
		s := slog.NewRecord(r.Time, slog.LevelWarn, "log lines dropped: the daemon logged faster than its limit", 0)
		s.AddAttrs(slog.Int("dropped", dropped))
		if err := h.base.Handle(ctx, s); err != nil {
			return err
		}
	}
	return h.next.Handle(ctx, r)
}

func (h *LimitHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &LimitHandler{next: h.next.WithAttrs(as), base: h.base, l: h.l}
}

func (h *LimitHandler) WithGroup(name string) slog.Handler {
	return &LimitHandler{next: h.next.WithGroup(name), base: h.base, l: h.l}
}
