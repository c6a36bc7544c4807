package hostileagent

import (
	"net"
	"net/http"
	"testing"
)

// Serve serves a on a free loopback port until the test ends, and returns
// the address (host:port); the daemon under test dials http://ADDR.
func Serve(t testing.TB, a *Agent) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: a}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return ln.Addr().String()
}
