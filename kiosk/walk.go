package kiosk

import (
	"slices"
	"strings"
	"unicode"

	"github.com/agentcall/acbridge/button"
)

// The focus walk lets a person at the physical buttons reach every control
// of the page, the page-only ones included (Read aloud, the language
// button), without the touch screen (EN 301 549 5.1.3 and 5.1.6: a closed
// device operable without sight and with its own tactile controls). A
// short press of Cancel moves the walked focus to the next control and, in
// speech mode, says the control, what it does and why it cannot act now;
// a press of Scan while the walk rests on a page-only control acts on that
// control. A short Cancel is free for this: the bridge cancels only on a
// long one. Scan, Photo and Talk keep their own meaning on every other
// control: the walk never changes what a physical button does, only which
// page-only control Scan reaches.

// The walk's names of the controls only the page has.
const (
	walkSpeech = "speech"
	walkLang   = "lang"
)

// walkOrder is the page's controls as the walk visits them: the controls
// at the bottom, then the choices at the top. That is the page's own
// order (the choices come first in it) read from Scan, where a session
// begins, and wrapping, as Tab wraps from the page's end to its start.
func (s *state) walkOrder() []string {
	order := []string{button.Scan, button.Photo, button.Talk, button.Cancel}
	if s.site.speech {
		order = append(order, walkSpeech)
	}
	if len(s.site.langs) > 1 {
		order = append(order, walkLang)
	}
	return order
}

// walkOn moves the walk to the next control, wrapping; a session's first
// step lands on the first control.
func (s *state) walkOn() string {
	order := s.walkOrder()
	s.walked = order[(slices.Index(order, s.walked)+1)%len(order)]
	s.walkSteps++
	s.seq++
	return s.walked
}

// describe says control c for a person who cannot see it: its name, what
// it does, and, when it cannot act now, why.
func (s *state) describe(c string) string {
	v := s.view()
	w := wordsFor(v.Lang)
	scan := w.T("control.scan")
	var parts []string
	switch c {
	case walkLang:
		parts = []string{w.T("lang.button") + ": " + w.T("lang.name"), w.p.Sprintf("walk.lang", scan)}
	case walkSpeech:
		// Said only in speech mode: the control is on.
		parts = []string{w.T("control.speech"), w.p.Sprintf("walk.speech", scan)}
	default:
		parts = []string{w.T(s.labelKey(c)), w.T("walk." + c), v.Reasons[c]}
	}
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, sentence(p))
		}
	}
	return strings.Join(out, " ")
}

// sentence ends p with a full stop unless it ends with punctuation.
func sentence(p string) string {
	if r := []rune(p); unicode.IsPunct(r[len(r)-1]) {
		return p
	}
	return p + "."
}

// buttonKeys is what the walk remembers of the buttons' events between a
// press and its release.
type buttonKeys struct {
	cancelDown bool // Cancel is held
	cancelLong bool // and has become a long press: its release does not walk
	scanTaken  bool // Scan's press acted on a page-only control: its release is not the bridge's either
}

// observe shows ev to the page before the bridge sees it, and reports
// whether the page took it: then the bridge must not act on it as well.
// A long press of Scan or Cancel turns speech mode on, so that a person who
// cannot see the screen finds it without finding a button on it first.
// Those two because their press is harmless to a person who does not know
// yet what it does (the reader waits for a tag; nothing runs to cancel); a
// press of Photo or Talk would take a photo or open the microphone.
func (s *Server) observe(ev button.Event) (taken bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	k := &s.keys
	switch {
	case ev.Long:
		if ev.Control == button.Cancel {
			k.cancelLong = true
		}
		if (ev.Control == button.Scan || ev.Control == button.Cancel) && s.st.site.speech {
			s.setSpeechLocked(true)
		}
	case ev.Control == button.Cancel && ev.Pressed:
		k.cancelDown, k.cancelLong = true, false
	case ev.Control == button.Cancel:
		if k.cancelDown && !k.cancelLong {
			s.walkLocked()
		}
		k.cancelDown = false
	case ev.Control == button.Scan && ev.Pressed && (s.st.walked == walkLang || s.st.walked == walkSpeech):
		// Acted on at once, as the bridge acts on a press; the reader is
		// not armed.
		k.scanTaken = true
		s.log.Info("kiosk: the Scan button acts on the walked control", "control", s.st.walked)
		s.activateLocked()
		return true
	case ev.Control == button.Scan && !ev.Pressed && k.scanTaken:
		k.scanTaken = false
		return true
	}
	return false
}

// walkLocked takes a short press of Cancel. Called with s.mu held.
func (s *Server) walkLocked() {
	c := s.st.walkOn()
	s.log.Info("kiosk: focus walked", "control", c)
	if s.st.speech {
		s.voice.say(s.st.describe(c), s.st.language())
	}
	s.signalLocked()
}

// activateLocked does what a touch of the walked page-only control does.
// Called with s.mu held.
func (s *Server) activateLocked() {
	switch s.st.walked {
	case walkLang:
		langs := s.st.site.langs
		s.setLanguageLocked(langs[(slices.Index(langs, s.st.language())+1)%len(langs)])
	case walkSpeech:
		s.setSpeechLocked(!s.st.speech)
	}
}

// endWalkLocked ends the walk when the screen is used: the touch (or the
// page's keyboard) put the focus where it wanted, and a press of the
// on-screen Scan must arm the reader, whatever the walk last rested on.
// Called with s.mu held.
func (s *Server) endWalkLocked() {
	if s.st.walked == "" {
		return
	}
	s.st.walked = ""
	s.st.seq++
	s.signalLocked()
}
