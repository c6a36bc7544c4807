package kiosk

import (
	"net/http"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/agentcall/acbridge/button"
)

const talkControl = button.Talk

// Actions a page can send for a control.
const (
	actTap     = "tap"     // press and release at once (scan, photo, cancel)
	actPress   = "press"   // Talk held down
	actRelease = "release" // Talk let go
)

// report is what a page says about itself with every request.
type report struct {
	Page    string `json:"page"`
	Visible bool   `json:"visible"`
	Focused bool   `json:"focused"`
}

func (r report) foreground() bool { return r.Visible && r.Focused }

type pressRequest struct {
	report
	Control string `json:"control"`
	Action  string `json:"action"`
}

type sayRequest struct {
	report
	Text string `json:"text"`
}

// collects reports whether a press of control starts or feeds a collection
// (or the microphone), which the spec allows only from a control in the
// foreground. Cancel stops things and is always allowed.
func collects(control string) bool { return control != button.Cancel }

// press takes one on-screen control event.
func (s *Server) press(w http.ResponseWriter, r *http.Request) {
	var req pressRequest
	if !s.checkPost(w, r, &req) {
		return
	}
	if err := button.CheckControl(req.Control); err != nil {
		s.refuse(w, r, http.StatusBadRequest, "control", "unknown control")
		return
	}
	switch {
	case req.Action == actTap:
	case req.Control == talkControl && (req.Action == actPress || req.Action == actRelease):
	default:
		s.refuse(w, r, http.StatusBadRequest, "action", "unknown action for this control")
		return
	}
	if collects(req.Control) && req.Action != actRelease && !s.fromBrowser(r) {
		s.refuse(w, r, http.StatusForbidden, "browser", "only the kiosk's own browser (kiosk.browser_user) may "+verb(req.Control))
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pageFor(w, r, req.report)
	if !ok {
		return
	}
	if s.off {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"reason": "off", "error": "The on-screen controls are off."})
		return
	}
	// Both the page's last report and the press itself must say "in front".
	// A press can only lower what the page reported (a page cannot press
	// first and report later); it rises again with the page's next report.
	p.visible = p.visible && req.Visible
	p.focused = p.focused && req.Focused
	front := p.visible && p.focused
	if collects(req.Control) && req.Action != actRelease && !front {
		s.log.Warn("kiosk: press refused: the page is not in the foreground", "control", req.Control,
			"visible", req.Visible, "focused", req.Focused)
		writeJSON(w, http.StatusConflict, map[string]string{"reason": "foreground",
			"error": "This screen must be in front to " + verb(req.Control) + ". Touch the button again."})
		return
	}
	if !p.visible || !p.focused {
		s.releaseTalk(p)
	}
	s.endWalkLocked()
	switch {
	case req.Control == button.Cancel:
		// The bridge cancels on a long Cancel: a deliberate tap on a screen
		// button labelled Cancel is one.
		s.controls.Tap(button.Cancel, true)
	case req.Action == actTap:
		s.controls.Tap(req.Control, false)
	case req.Action == actPress:
		p.talking = true
		s.controls.SetInput(talkControl, p.input, true)
	case req.Action == actRelease:
		s.releaseTalk(p)
	}
	s.log.Info("kiosk: on-screen press", "control", req.Control, "action", req.Action)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// focus takes a page's report of its visibility and focus.
func (s *Server) focus(w http.ResponseWriter, r *http.Request) {
	var req report
	if !s.checkPost(w, r, &req) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pageFor(w, r, req)
	if !ok {
		return
	}
	p.visible, p.focused = req.Visible, req.Focused
	if !req.foreground() {
		s.releaseTalk(p)
	}
	s.log.Debug("kiosk: page focus", "visible", req.Visible, "focused", req.Focused)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// say takes a typed turn from the text box.
func (s *Server) say(w http.ResponseWriter, r *http.Request) {
	if !s.textBox {
		s.refuse(w, r, http.StatusNotFound, "textbox", "this kiosk has no text box")
		return
	}
	var req sayRequest
	if !s.checkPost(w, r, &req) {
		return
	}
	text := strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, req.Text))
	switch n := utf8.RuneCountInString(text); {
	case !utf8.ValidString(req.Text) || n == 0:
		s.refuse(w, r, http.StatusBadRequest, "text", "type something first")
		return
	case n > maxTypedLen:
		s.refuse(w, r, http.StatusRequestEntityTooLarge, "text", "that is too long: at most 500 characters")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.pageFor(w, r, req.report)
	if !ok {
		return
	}
	p.visible = p.visible && req.Visible
	p.focused = p.focused && req.Focused
	if !p.visible || !p.focused {
		writeJSON(w, http.StatusConflict, map[string]string{"reason": "foreground", "error": "This screen must be in front to send text."})
		return
	}
	select {
	case s.texts <- text:
	default:
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"reason": "busy", "error": "Still sending what you typed before: try again in a moment."})
		return
	}
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// pageFor finds the page a request names. Called with s.mu held; it answers
// the request itself when there is no such page.
func (s *Server) pageFor(w http.ResponseWriter, r *http.Request, rep report) (*page, bool) {
	p := s.pages[rep.Page]
	if p == nil {
		s.refuse(w, r, http.StatusConflict, "page", "this page is not connected: reload it")
		return nil, false
	}
	return p, true
}

// releaseTalk lets go of Talk if the page holds it. Called with s.mu held.
func (s *Server) releaseTalk(p *page) {
	if p.talking {
		p.talking = false
		s.controls.SetInput(talkControl, p.input, false)
	}
}

func verb(control string) string {
	switch control {
	case button.Scan:
		return "scan a tag"
	case button.Photo:
		return "take a photo"
	case button.Talk:
		return "talk"
	}
	return "use this control"
}
