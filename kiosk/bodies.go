package kiosk

import (
	"net/http"
	"time"
)

// defaultBodyTimeout bounds reading a request's body. The page's bodies are
// a few hundred bytes sent at once, so a body still arriving after this is
// a local process holding a connection (and its goroutine and buffers)
// open. http.Server's ReadTimeout cannot be used: it would also end the
// long-lived event stream.
const defaultBodyTimeout = 5 * time.Second

// limitBody gives a request that carries a body a read deadline, which also
// bounds the server's draining of a body the handler refused without
// reading. A GET or HEAD with a body is refused: no page sends one, and the
// event stream must not be given a deadline. It answers the request itself
// and returns false when it refuses it.
func (s *Server) limitBody(w http.ResponseWriter, r *http.Request) bool {
	if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
		return true
	}
	// Errors only when the connection cannot take a deadline (not a
	// net.Conn); the server always gives one.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(s.bodyTimeout))
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		w.Header().Set("Connection", "close")
		s.refuse(w, r, http.StatusBadRequest, "body", "a GET request carries no body")
		return false
	}
	return true
}
