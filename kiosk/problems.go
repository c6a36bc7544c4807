package kiosk

import (
	"slices"

	"github.com/agentcall/acbridge/health"
)

// maxProblems bounds the problems a page shows at once: the registry is
// the program's own and small, but the page's list must not grow with it.
const maxProblems = 8

// problemView is one current problem in the visitor's words.
type problemView struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// trackHealth shows t's current problems on every page and follows them
// as they are set and cleared. The tracker is read under s.mu, so that two
// changes arriving together cannot leave the page showing the older.
func (s *Server) trackHealth(t *health.Tracker) {
	if t == nil {
		return
	}
	t.Watch(func(*health.Warnable, bool) { s.showProblems(t) })
	s.showProblems(t)
}

func (s *Server) showProblems(t *health.Tracker) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	var codes []string
	for _, w := range t.Current() {
		codes = append(codes, w.Code)
	}
	if len(codes) > maxProblems {
		codes = codes[:maxProblems]
	}
	if slices.Equal(codes, s.st.problems) {
		return
	}
	var before view
	if s.st.speech {
		before = s.st.view()
	}
	s.st.seq++
	s.st.problems = codes
	s.sayChangeLocked(before)
	s.signalLocked()
}

// problemViews says the problems in w's language (the registry's Person
// text, or the catalogue's by code or area).
func problemViews(codes []string, w words) []problemView {
	out := make([]problemView, 0, len(codes))
	for _, c := range codes {
		out = append(out, problemView{Code: c, Text: w.person(c)})
	}
	return out
}
