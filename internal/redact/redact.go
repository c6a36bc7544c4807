package redact

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
)

// Mark replaces each secret.
const Mark = "[token]"

// Secrets is a set of strings to take out of text; its zero value and nil
// take out nothing. It is immutable and safe for concurrent use.
type Secrets struct {
	list  []string // as given
	lower []string // ASCII-lowercased, for matching
}

// New returns the set of the non-empty secrets.
func New(secrets ...string) *Secrets {
	s := &Secrets{}
	for _, x := range secrets {
		if x != "" {
			s.list = append(s.list, x)
			s.lower = append(s.lower, lowerASCII(x))
		}
	}
	return s
}

// String returns text with every secret replaced by Mark.
func (s *Secrets) String(text string) string {
	if s == nil || len(s.list) == 0 {
		return text
	}
	low := lowerASCII(text) // same length: only ASCII letters change
	for _, sec := range s.lower {
		if !strings.Contains(low, sec) {
			continue
		}
		var b strings.Builder
		var bl strings.Builder
		for {
			i := strings.Index(low, sec)
			if i < 0 {
				break
			}
			b.WriteString(text[:i])
			b.WriteString(Mark)
			bl.WriteString(low[:i])
			bl.WriteString(Mark)
			text, low = text[i+len(sec):], low[i+len(sec):]
		}
		b.WriteString(text)
		bl.WriteString(low)
		text, low = b.String(), bl.String()
	}
	return text
}

// Error returns err with its text redacted; errors.Is and errors.As still
// see the original chain, so callers can classify it, but its Error() is
// the redacted text.
func (s *Secrets) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if r := s.String(msg); r != msg {
		return &redacted{err: err, msg: r}
	}
	return err
}

type redacted struct {
	err error
	msg string
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

// Handler returns a slog.Handler that redacts each record's message and
// attributes (strings, errors and anything formatted) before h sees them.
func (s *Secrets) Handler(h slog.Handler) slog.Handler {
	if s == nil || len(s.list) == 0 {
		return h
	}
	return &handler{next: h, s: s}
}

type handler struct {
	next slog.Handler
	s    *Secrets
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.s.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = h.attr(a)
	}
	return &handler{next: h.next.WithAttrs(red), s: h.s}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{next: h.next.WithGroup(name), s: h.s}
}

func (h *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.s.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		red := make([]any, len(g))
		for i, x := range g {
			red[i] = h.attr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		x := v.Any()
		text := fmt.Sprint(x) // an error prints its Error()
		if r := h.s.String(text); r != text {
			return slog.String(a.Key, r)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'A' <= c && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
