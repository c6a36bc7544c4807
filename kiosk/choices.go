package kiosk

import (
	"context"
	"net/http"
	"slices"

	"github.com/agentcall/acbridge/button"
)

// The visitor's choices for their session: the page's language and speech
// mode. Both end with the session (state.forgetVisitor). Neither collects
// anything, so, like Cancel, they need no page in front.

type langRequest struct {
	report
	Lang string `json:"lang"`
}

type speechRequest struct {
	report
	On bool `json:"on"`
}

// choicePage decodes a choice into req and finds the page that rep (req's
// report) names. When it returns true, s.mu is held; otherwise it has
// answered the request.
func (s *Server) choicePage(w http.ResponseWriter, r *http.Request, req any, rep *report) bool {
	if !s.checkPost(w, r, req) {
		return false
	}
	s.mu.Lock()
	if _, ok := s.pageFor(w, r, *rep); !ok {
		s.mu.Unlock()
		return false
	}
	return true
}

// chooseLanguage takes the language button's choice.
func (s *Server) chooseLanguage(w http.ResponseWriter, r *http.Request) {
	var req langRequest
	if !s.choicePage(w, r, &req, &req.report) {
		return
	}
	defer s.mu.Unlock()
	if len(s.st.site.langs) < 2 || !slices.Contains(s.st.site.langs, req.Lang) {
		s.refuse(w, r, http.StatusBadRequest, "lang", "this kiosk does not offer that language")
		return
	}
	s.endWalkLocked()
	s.setLanguageLocked(req.Lang)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// setLanguageLocked makes lang the session's language, said in itself in
// speech mode. Called with s.mu held.
func (s *Server) setLanguageLocked(lang string) {
	s.st.lang = lang
	s.st.seq++
	s.log.Info("kiosk: language chosen", "lang", lang)
	if s.st.speech {
		v := s.st.view()
		s.voice.say(v.Words["lang.name"], v.Lang)
	}
	s.signalLocked()
}

// chooseSpeech turns speech mode on or off for the session.
func (s *Server) chooseSpeech(w http.ResponseWriter, r *http.Request) {
	var req speechRequest
	if !s.choicePage(w, r, &req, &req.report) {
		return
	}
	defer s.mu.Unlock()
	if !s.st.site.speech {
		s.refuse(w, r, http.StatusNotFound, "speech", "this kiosk has no speech mode")
		return
	}
	s.endWalkLocked()
	s.setSpeechLocked(req.On)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// Watch returns src (the kiosk's buttons, physical and on-screen, merged)
// with every event also shown to the page first (Server.observe): a long
// press turns speech mode on, a short Cancel walks the page's focus, and a
// Scan press the walked page-only control takes is not passed on.
func (s *Server) Watch(src button.Source) button.Source { return watched{src, s} }

type watched struct {
	button.Source
	s *Server
}

func (w watched) Read(ctx context.Context) (button.Event, error) {
	for {
		ev, err := w.Source.Read(ctx)
		if err != nil || !w.s.observe(ev) {
			return ev, err
		}
	}
}

func (s *Server) setSpeechLocked(on bool) {
	if s.st.speech == on {
		return
	}
	s.st.speech = on
	s.st.seq++
	s.log.Info("kiosk: speech mode", "on", on)
	if on {
		s.sayScreenLocked()
	}
	s.warnLocked()
	s.signalLocked()
}
