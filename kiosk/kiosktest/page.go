package kiosktest

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"testing"
)

var tokenRE = regexp.MustCompile(`name="acbridge-token" content="([^"]+)"`)

// PageToken loads the page at pageURL and returns the start's token from
// it, as the page's script reads it: what tests look for where it must not
// be.
func PageToken(t testing.TB, pageURL string) string {
	t.Helper()
	res, err := http.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	m := tokenRE.FindSubmatch(b)
	if m == nil || len(m[1]) < 16 {
		t.Fatalf("no token in the page at %s", pageURL)
	}
	return string(m[1])
}

// FreeAddr returns a loopback address nothing listens on: a port the
// kernel just gave and took back.
func FreeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
