package health

import (
	"slices"
	"strings"
	"sync"
)

// Tracker holds the problems that are current on this kiosk: the part
// that notices a problem sets it, the part that sees it gone clears it,
// and the status line and the kiosk page read it. The zero value is ready
// to use; a nil *Tracker tracks nothing.
type Tracker struct {
	mu       sync.Mutex
	cur      map[*Warnable]string // problem → the operator's detail
	watchers []func(w *Warnable, on bool)
}

// Set marks w current with detail (an error's text, for the operator's
// status line; never shown to the visitor). Setting it again with
// another detail updates the detail without telling the watchers.
func (t *Tracker) Set(w *Warnable, detail string) {
	if t == nil || w == nil {
		return
	}
	t.mu.Lock()
	_, was := t.cur[w]
	if t.cur == nil {
		t.cur = map[*Warnable]string{}
	}
	t.cur[w] = detail
	ws := t.watchers
	t.mu.Unlock()
	if !was {
		for _, f := range ws {
			f(w, true)
		}
	}
}

// SetErr sets the problem err wraps (Of) with err's text as detail and
// returns it; nil when err wraps none.
func (t *Tracker) SetErr(err error) *Warnable {
	w := Of(err)
	if w != nil {
		t.Set(w, err.Error())
	}
	return w
}

// Clear marks w no longer current.
func (t *Tracker) Clear(w *Warnable) {
	if t == nil || w == nil {
		return
	}
	t.mu.Lock()
	_, was := t.cur[w]
	delete(t.cur, w)
	ws := t.watchers
	t.mu.Unlock()
	if was {
		for _, f := range ws {
			f(w, false)
		}
	}
}

// Current returns the current problems, ordered by code.
func (t *Tracker) Current() []*Warnable {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]*Warnable, 0, len(t.cur))
	for w := range t.cur {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b *Warnable) int { return strings.Compare(a.Code, b.Code) })
	return out
}

// Detail returns the detail w was last set with and whether it is
// current.
func (t *Tracker) Detail(w *Warnable) (string, bool) {
	if t == nil {
		return "", false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	d, ok := t.cur[w]
	return d, ok
}

// Watch calls f, outside the tracker's lock, each time a problem becomes
// current (on) or stops being current; f must return promptly.
func (t *Tracker) Watch(f func(w *Warnable, on bool)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.watchers = append(t.watchers, f)
}
