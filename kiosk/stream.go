package kiosk

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// page is one open live stream: a page on the screen. Presses name their
// page, so only a page that is showing the present state can press.
type page struct {
	id      string
	input   int           // the page's input number on the Talk control
	dirty   chan struct{} // capacity 1: the state changed since the last update
	visible bool          // the page's last report
	focused bool
	talking bool // holding Talk
}

// events serves the live stream: a "hello" naming the page, then the whole
// state after every change, with a comment line as a heartbeat.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	if !s.streamOrigin(r) {
		s.refuse(w, r, http.StatusForbidden, "origin", "requests from other sites are refused")
		return
	}
	if !s.validToken(r.URL.Query().Get("token")) {
		s.refuse(w, r, http.StatusForbidden, "token", "this page is out of date: reload it")
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "kiosk: streaming unsupported", http.StatusInternalServerError)
		return
	}
	p, status := s.openPage()
	if p == nil {
		s.refuse(w, r, status, "pages", "too many kiosk pages are open")
		return
	}
	defer s.closePage(p)

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	hello, _ := json.Marshal(map[string]string{"page": p.id})
	if _, err := fmt.Fprintf(w, "retry: 2000\nevent: hello\ndata: %s\n\n", hello); err != nil {
		return
	}
	if s.sendState(w) != nil {
		return
	}
	flusher.Flush()
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		var err error
		select {
		case <-p.dirty:
			err = s.sendState(w)
		case <-tick.C:
			_, err = fmt.Fprint(w, ": ping\n\n")
		case <-r.Context().Done():
			return
		case <-s.done:
			return
		}
		if err != nil {
			return
		}
		flusher.Flush()
	}
}

func (s *Server) sendState(w http.ResponseWriter) error {
	s.mu.Lock()
	v := s.st.view()
	s.mu.Unlock()
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "event: state\ndata: %s\n\n", b)
	return err
}

// openPage registers a stream; it returns nil and a status when the Server
// is closed or too many pages are open.
func (s *Server) openPage() (*page, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, http.StatusServiceUnavailable
	}
	if len(s.pages) >= maxPages {
		return nil, http.StatusServiceUnavailable
	}
	used := map[int]bool{}
	for _, q := range s.pages {
		used[q.input] = true
	}
	p := &page{id: newID(), dirty: make(chan struct{}, 1)}
	for used[p.input] {
		p.input++
	}
	s.pages[p.id] = p
	s.streams.Add(1) // under mu with closed false: Close's Wait comes after
	// Whether a screen shows the page is the first question on site.
	s.log.Info("kiosk: page connected", "pages", len(s.pages))
	return p, 0
}

// closePage forgets a page whose stream ended; Talk held by it is released,
// as a page that is gone can never release it.
func (s *Server) closePage(p *page) {
	s.mu.Lock()
	delete(s.pages, p.id)
	s.log.Info("kiosk: page disconnected", "pages", len(s.pages))
	if p.talking {
		p.talking = false
		s.controls.SetInput(talkControl, p.input, false)
	}
	s.mu.Unlock()
	s.streams.Done()
}
