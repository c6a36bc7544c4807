package connlimit

import (
	"net"
	"net/http"
	"sync"

	"golang.org/x/net/netutil"
)

// limit bounds an http.Server to max open connections. At the limit the
// listener accepts no more (netutil.LimitListener: the kernel's backlog
// holds them) and, so that a real client is not locked out by idle ones,
// each connection opened at the limit closes the connection idle the
// longest, as does each connection that goes idle at the limit.
// Connections busy with a request are bounded by the server's own timeouts.
type limit struct {
	max  int
	mu   sync.Mutex
	open int
	idle []net.Conn // idle connections, longest idle first
}

// Serve bounds srv to max connections on ln, as described at limit: it
// sets srv.ConnState (which must not be set otherwise); serve with
// srv.Serve on the returned listener.
func Serve(srv *http.Server, ln net.Listener, max int) net.Listener {
	l := &limit{max: max}
	srv.ConnState = l.state
	return netutil.LimitListener(ln, max)
}

func (l *limit) state(c net.Conn, s http.ConnState) {
	var evict net.Conn
	l.mu.Lock()
	switch s {
	case http.StateNew:
		l.open++
		if l.open >= l.max && len(l.idle) > 0 {
			evict = l.idle[0]
			l.idle = l.idle[1:]
		}
	case http.StateIdle:
		l.idle = append(l.idle, c)
		// At the limit a connection that goes idle makes room too: the
		// connection that took the last place may have found none idle,
		// and those waiting in the backlog would wait for the idle
		// timeout.
		if l.open >= l.max {
			evict = l.idle[0]
			l.idle = l.idle[1:]
		}
	case http.StateActive:
		l.drop(c)
	case http.StateClosed, http.StateHijacked:
		l.drop(c)
		l.open--
	}
	l.mu.Unlock()
	if evict != nil {
		evict.Close()
	}
}

// drop forgets c as idle. Called with mu held.
func (l *limit) drop(c net.Conn) {
	for i, d := range l.idle {
		if d == c {
			l.idle = append(l.idle[:i], l.idle[i+1:]...)
			return
		}
	}
}
