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
	kicked  chan struct{} // closed when a newer page took this one's place
	opened  uint64        // order of opening: the oldest is kicked first
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
	if !s.fromBrowser(r) {
		s.refuse(w, r, http.StatusForbidden, "browser", "only the kiosk's own browser (kiosk.browser_user) may show this page")
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
	// A stream ends after a while (the page reconnects at once, as after a
	// restart), so that none is held open for good.
	life := time.NewTimer(s.streamLife)
	defer life.Stop()
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
		case <-p.kicked:
			return
		case <-life.C:
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
// is closed. With maxPages open, the oldest page's stream is ended: the
// newest page wins, so streams left open cannot lock the screen out.
func (s *Server) openPage() (*page, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, http.StatusServiceUnavailable
	}
	for len(s.pages) >= maxPages {
		var oldest *page
		for _, q := range s.pages {
			if oldest == nil || q.opened < oldest.opened {
				oldest = q
			}
		}
		s.forgetLocked(oldest)
		close(oldest.kicked)
	}
	used := map[int]bool{}
	for _, q := range s.pages {
		used[q.input] = true
	}
	s.opened++
	p := &page{id: newID(), dirty: make(chan struct{}, 1), kicked: make(chan struct{}), opened: s.opened}
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
	if s.pages[p.id] == p {
		s.forgetLocked(p)
	}
	s.mu.Unlock()
	s.streams.Done()
}

// forgetLocked removes a page; Talk held by it is released, as a page that
// is gone can never release it. Called with s.mu held.
func (s *Server) forgetLocked(p *page) {
	delete(s.pages, p.id)
	s.log.Info("kiosk: page disconnected", "pages", len(s.pages))
	s.releaseTalk(p)
}
