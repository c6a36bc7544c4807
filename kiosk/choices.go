package kiosk

import (
	"context"
	"net/http"
	"slices"

	"github.com/agentcall/acbridge/button"
)

// The visitor's choices for their session: the page's language and speech
// mode. Both end with the session (state.endSession). Neither collects
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
	s.st.lang = req.Lang
	s.st.seq++
	s.log.Info("kiosk: language chosen", "lang", req.Lang)
	if s.st.speech {
		v := s.st.view()
		s.voice.say(v.Words["lang.name"], v.Lang)
	}
	s.signalLocked()
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
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
	s.setSpeechLocked(req.On)
	writeJSON(w, http.StatusOK, map[string]bool{"ok": true})
}

// Watch returns src (the kiosk's buttons, physical and on-screen, merged)
// with every event also shown to the page: a long press of Scan or Cancel
// turns speech mode on, so that a person who cannot see the screen finds it
// without finding a button on it first. Those two because their press is
// harmless to a person who does not know yet what it does (the reader
// waits for a tag; nothing runs to cancel); a press of Photo or Talk would
// take a photo or open the microphone.
func (s *Server) Watch(src button.Source) button.Source { return watched{src, s} }

type watched struct {
	button.Source
	s *Server
}

func (w watched) Read(ctx context.Context) (button.Event, error) {
	ev, err := w.Source.Read(ctx)
	if err == nil {
		w.s.observe(ev)
	}
	return ev, err
}

func (s *Server) observe(ev button.Event) {
	if !ev.Long || !ev.Pressed || ev.Control != button.Scan && ev.Control != button.Cancel {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.site.speech && !s.closed {
		s.setSpeechLocked(true)
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
