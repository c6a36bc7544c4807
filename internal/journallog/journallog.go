// Package journallog is a log/slog handler that writes records to the
// systemd journal with one journal field per attribute, so that the privacy
// audit can be queried by field (journalctl ACBRIDGE_AUDIT=observation.sent
// ACBRIDGE_KIND=photo). It uses github.com/coreos/go-systemd/v22/journal for
// the native protocol; only the attribute-to-field mapping is ours.
package journallog

import (
	"context"
	"log/slog"
	"strings"

	"github.com/coreos/go-systemd/v22/journal"
)

// Available reports whether the process runs under systemd with its
// standard error connected to the journal.
func Available() bool {
	ok, err := journal.StderrIsJournalStream()
	return err == nil && ok && journal.Enabled()
}

// Handler sends records to the journal.
type Handler struct {
	level slog.Leveler
	attrs []slog.Attr
	group string
	send  func(msg string, p journal.Priority, vars map[string]string) error
}

// New returns a handler for records at level and above.
func New(level slog.Leveler) *Handler { return &Handler{level: level, send: journal.Send} }

func (h *Handler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

func (h *Handler) Handle(_ context.Context, r slog.Record) error {
	vars := map[string]string{}
	add := func(a slog.Attr) {
		if k := FieldName(h.group, a.Key); k != "" {
			vars[k] = a.Value.Resolve().String()
		}
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	return h.send(r.Message, priority(r.Level), vars)
}

func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	return &c
}

func (h *Handler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "_" + name
	}
	c.group = name
	return &c
}

func priority(l slog.Level) journal.Priority {
	switch {
	case l >= slog.LevelError:
		return journal.PriErr
	case l >= slog.LevelWarn:
		return journal.PriWarning
	case l >= slog.LevelInfo:
		return journal.PriInfo
	}
	return journal.PriDebug
}

// FieldName maps an attribute key to a journal field: ACBRIDGE_ then the
// key upper-cased, with anything outside [A-Z0-9_] as "_" (journald accepts
// nothing else, and the prefix keeps us clear of its trusted fields).
func FieldName(group, key string) string {
	if group != "" {
		key = group + "_" + key
	}
	if key == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("ACBRIDGE_")
	for _, r := range strings.ToUpper(key) {
		if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() > 64 {
		return b.String()[:64]
	}
	return b.String()
}
