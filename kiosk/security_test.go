package kiosk_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/kiosk"
)

func TestPageHeaders(t *testing.T) {
	s := startKiosk(t, nil)
	for _, path := range []string{"", "static/kiosk.js", "static/kiosk.css"} {
		res, err := http.Get(s.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET /%s: %d", path, res.StatusCode)
		}
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("/%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("/%s: CSP allows inline code: %q", path, csp)
		}
		for k, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "Cache-Control": "no-store"} {
			if got := h.Get(k); got != want {
				t.Errorf("/%s: %s %q, want %q", path, k, got, want)
			}
		}
		for k := range h {
			if strings.HasPrefix(k, "Access-Control-") {
				t.Errorf("/%s: CORS header %s", path, k)
			}
		}
		if path == "" && (strings.Contains(string(body), "<script>") || !strings.Contains(string(body), `<script src="/static/kiosk.js"`)) {
			t.Errorf("the page has inline script or no script file")
		}
	}
	res, err := http.Get(s.URL() + "static/index.html")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("the page template is served raw: %d", res.StatusCode)
	}
	// Each start has its own token.
	s2 := startKiosk(t, nil)
	if kioskToken(t, s) == kioskToken(t, s2) {
		t.Error("two starts share a token")
	}
}

func TestHostRefused(t *testing.T) {
	s := startKiosk(t, nil)
	port := s.Addr()[strings.LastIndex(s.Addr(), ":"):]
	for host, want := range map[string]int{
		"127.0.0.1" + port:      200,
		"localhost" + port:      200,
		"LOCALHOST" + port:      200,
		"rebind.example" + port: http.StatusMisdirectedRequest,
		"127.0.0.1:1":           http.StatusMisdirectedRequest,
		"127.0.0.1":             http.StatusMisdirectedRequest,
	} {
		req, _ := http.NewRequest("GET", s.URL(), nil)
		req.Host = host
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("Host %q: %d, want %d", host, res.StatusCode, want)
		}
	}
}

func TestNoHostRefused(t *testing.T) {
	s := startKiosk(t, nil)
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET / HTTP/1.0\r\n\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.Contains(line, "421") {
		t.Errorf("request without Host: %q", line)
	}
}

func TestStreamChecks(t *testing.T) {
	s := startKiosk(t, nil)
	tok := kioskToken(t, s)
	for name, c := range map[string]struct {
		token string
		hdr   map[string]string
	}{
		"no token":         {"", nil},
		"wrong token":      {tok[:len(tok)-2] + "xx", nil},
		"other origin":     {tok, map[string]string{"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"}},
		"other port":       {tok, map[string]string{"Origin": "http://127.0.0.1:1"}},
		"cross-site fetch": {tok, map[string]string{"Sec-Fetch-Site": "cross-site"}},
		"no fetch headers": {tok, map[string]string{"Sec-Fetch-Site": ""}},
	} {
		if st, status := openStream(t, s, c.token, c.hdr); st != nil || status != http.StatusForbidden {
			t.Errorf("%s: status %d, want 403", name, status)
		}
	}
	// The page's own origin, named as Origin, is fine too.
	st, _ := openStream(t, s, tok, map[string]string{"Origin": strings.TrimSuffix(s.URL(), "/")})
	if st == nil {
		t.Fatal("same-origin stream refused")
	}
	if v := st.next(t); v["connection"].(map[string]any)["state"] != "connecting" {
		t.Errorf("first state %v", v)
	}
}

func TestPressRefusals(t *testing.T) {
	s := startKiosk(t, &kiosk.Options{Logger: logTo(&syncbuf.Buffer{})})
	tok := kioskToken(t, s)
	st := frontPage(t, s, tok)
	good := press(st.page, "scan", "tap", true, true)
	for _, c := range []struct {
		name   string
		token  string
		body   string
		hdr    map[string]string
		status int
		reason string
	}{
		{"no token", "", good, nil, 403, "token"},
		{"wrong token", strings.ToUpper(tok), good, nil, 403, "token"},
		{"no origin", tok, good, map[string]string{"Origin": ""}, 403, "origin"},
		{"other origin", tok, good, map[string]string{"Origin": "http://evil.example"}, 403, "origin"},
		{"null origin", tok, good, map[string]string{"Origin": "null"}, 403, "origin"},
		{"text/plain", tok, good, map[string]string{"Content-Type": "text/plain"}, 415, "content-type"},
		{"form", tok, good, map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "content-type"},
		{"not json", tok, "{", nil, 400, "json"},
		{"two objects", tok, good + good, nil, 400, "json"},
		{"unknown field", tok, `{"page":"x","control":"scan","action":"tap","uid":"04CAFE"}`, nil, 400, "json"},
		{"too large", tok, `{"page":"` + strings.Repeat("x", 4096) + `"}`, nil, 413, "size"},
		{"unknown control", tok, press(st.page, "eject", "tap", true, true), nil, 400, "control"},
		{"hold scan", tok, press(st.page, "scan", "press", true, true), nil, 400, "action"},
		{"unknown page", tok, press("nope", "scan", "tap", true, true), nil, 409, "page"},
	} {
		code, v := post(t, s, "/api/press", c.token, c.body, c.hdr)
		if code != c.status || v["reason"] != c.reason {
			t.Errorf("%s: %d %v, want %d %s", c.name, code, v, c.status, c.reason)
		}
	}
	// Nothing reached the controls.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if ev, err := s.Source().Read(ctx); err == nil {
		t.Errorf("a refused request pressed %v", ev)
	}
	// Methods other than the route's, and CORS preflights, are refused
	// without CORS headers.
	req, _ := http.NewRequest("OPTIONS", s.URL()+"api/press", nil)
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("Access-Control-Request-Method", "POST")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode < 400 || res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("preflight answered %d %v", res.StatusCode, res.Header)
	}
}
