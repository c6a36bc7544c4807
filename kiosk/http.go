package kiosk

import (
	"bytes"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var static embed.FS

var pageTmpl = template.Must(template.ParseFS(static, "static/index.html"))

// csp allows the page's own files and same-origin requests only: no inline
// script or style, no framing, no forms posting elsewhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// tokenHeader carries the start's token on state-changing requests. A custom
// header also makes any cross-origin attempt a CORS preflight, which this
// server never grants.
const tokenHeader = "X-Acbridge-Token"

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.page)
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /healthz/pages", s.healthzPages)
	mux.HandleFunc("GET /static/{file}", s.file)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("POST /api/press", s.press)
	mux.HandleFunc("POST /api/focus", s.focus)
	mux.HandleFunc("POST /api/say", s.say)
	mux.HandleFunc("POST /api/lang", s.chooseLanguage)
	mux.HandleFunc("POST /api/speech", s.chooseSpeech)
	return s.guard(mux)
}

// guard sets the headers of every response and refuses a Host that does not
// name this server before anything else runs.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		h.Set("Cross-Origin-Resource-Policy", "same-origin")
		h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=()")
		h.Set("Cache-Control", "no-store")
		if !s.limitBody(w, r) {
			return
		}
		if !s.hosts[strings.ToLower(r.Host)] {
			s.refuse(w, r, http.StatusMisdirectedRequest, "host", "this page is served as "+s.Addr()+" only")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers a request that fails a check, and logs why (never the
// request's content).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, status int, reason, msg string) {
	s.log.Warn("kiosk: request refused", "reason", reason, "method", r.Method, "path", clip(r.URL.Path, 64), "status", status)
	writeJSON(w, status, map[string]string{"error": msg, "reason": reason})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// page serves index.html with the token in it.
func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	v := s.st.view()
	s.mu.Unlock()
	// The first paint is in the session's language; the live state
	// redraws every word after it.
	w8 := wordsFor(v.Lang)
	tw := map[string]string{}
	for _, k := range cat.keys {
		tw[strings.ReplaceAll(k, ".", "_")] = w8.T(k)
	}
	var buf bytes.Buffer
	if err := pageTmpl.Execute(&buf, map[string]any{"Token": s.token, "TextBox": s.textBox, "Lang": v.Lang, "Dir": v.Dir,
		"Title": v.Title, "Purpose": v.Purpose, "W": tw}); err != nil {
		s.log.Error("kiosk: page", "err", err)
		http.Error(w, "kiosk: page error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(buf.Bytes())
}

// healthzBody is what /healthz answers, so that a waiting browser launcher
// (acbridge kiosk-wait) can tell this page from another program on the port.
const healthzBody = "acbridge kiosk page\n"

// healthz tells a launcher that the page is being served. It carries no
// token: only a page that loads / gets one.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	io.WriteString(w, healthzBody)
}

// healthzPages answers how many pages are connected to the event stream,
// so that a launcher can tell a browser that shows the page from one that
// started and shows nothing (acbridge kiosk-wait --shown).
func (s *Server) healthzPages(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.pages)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "%d\n", n)
}

// file serves the page's script and style sheet from the binary.
func (s *Server) file(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	ext := path.Ext(name)
	if ext != ".js" && ext != ".css" && ext != ".svg" {
		http.NotFound(w, r)
		return
	}
	b, err := static.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", mime.TypeByExtension(ext))
	w.Write(b)
}

// sameOrigin checks the Origin header of a state-changing request: it must
// be present and name this server. Browsers send it on every POST, so a
// missing one is not a browser page of ours.
func (s *Server) sameOrigin(r *http.Request) bool {
	return s.origins[strings.ToLower(r.Header.Get("Origin"))]
}

// streamOrigin checks the live stream's request. A same-origin EventSource
// GET carries no Origin header in Chromium but does carry Sec-Fetch-Site;
// a cross-origin one carries both, so either must say "this server".
func (s *Server) streamOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		return s.sameOrigin(r)
	}
	return r.Header.Get("Sec-Fetch-Site") == "same-origin"
}

func (s *Server) validToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// checkPost runs the checks every state-changing request passes and
// decodes its JSON body into v. It answers the request itself on failure.
func (s *Server) checkPost(w http.ResponseWriter, r *http.Request, v any) bool {
	if !s.sameOrigin(r) {
		s.refuse(w, r, http.StatusForbidden, "origin", "requests from other sites are refused")
		return false
	}
	if !s.validToken(r.Header.Get(tokenHeader)) {
		s.refuse(w, r, http.StatusForbidden, "token", "this page is out of date: reload it")
		return false
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" {
		s.refuse(w, r, http.StatusUnsupportedMediaType, "content-type", "send application/json")
		return false
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.refuse(w, r, http.StatusRequestEntityTooLarge, "size", "request too large")
		} else {
			s.refuse(w, r, http.StatusBadRequest, "json", "not a valid request")
		}
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		s.refuse(w, r, http.StatusBadRequest, "json", "not a valid request")
		return false
	}
	return true
}
