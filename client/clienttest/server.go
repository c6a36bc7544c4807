// Package clienttest provides a real HTTPS + WebSocket agent stand-in on
// 127.0.0.1 for tests: it serves a card and runs a script per AG-UI
// connection, under a client.Policy that resolves *.test names to loopback.
package clienttest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// Server is a real HTTPS + WebSocket server on 127.0.0.1 that serves a
// card and runs script for each AG-UI connection. Its host name is
// agent.test, resolved to 127.0.0.1 by the test policy.
type Server struct {
	srv *httptest.Server
	// Host is agent.test:PORT.
	Host string
	// Card is served as the agent card; tests may edit it.
	Card map[string]any
	// Mux serves the card and /agui; tests may replace handlers via SetHandler.
	Mux      *http.ServeMux
	script   func(ctx context.Context, c *websocket.Conn, r *http.Request)
	mu       sync.Mutex
	authSeen []string // Authorization headers seen, per request path
}

func NewServer(t testing.TB, script func(ctx context.Context, c *websocket.Conn, r *http.Request)) *Server {
	t.Helper()
	a := &Server{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		a.record(r)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a.Card)
	})
	mux.HandleFunc("/agui", func(w http.ResponseWriter, r *http.Request) {
		a.record(r)
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		wsframe.Prepare(c)
		defer c.CloseNow()
		a.script(r.Context(), c, r)
	})
	a.srv = httptest.NewTLSServer(mux)
	a.Mux = mux
	t.Cleanup(a.srv.Close)
	_, port, _ := net.SplitHostPort(a.srv.Listener.Addr().String())
	a.Host = "agent.test:" + port
	a.Card = CardJSON("https://" + a.Host + "/agui")
	return a
}

func (a *Server) record(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.authSeen = append(a.authSeen, r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (a *Server) Auth() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.authSeen...)
}

func (a *Server) Base() string { return "https://" + a.Host }

// Policy trusts the test server's certificate and resolves *.test names to
// loopback, under the local-development policy.
func (a *Server) Policy() *client.Policy {
	pool := x509.NewCertPool()
	pool.AddCert(a.srv.Certificate())
	return &client.Policy{
		AllowInsecureLocal: true,
		TLSConfig:          &tls.Config{RootCAs: pool, ServerName: "example.com"},
		LookupIP:           LookupTable(map[string]string{"agent.test": "127.0.0.1", "other.test": "127.0.0.1"}),
		TotalTimeout:       5 * time.Second,
	}
}

func LookupTable(m map[string]string) func(context.Context, string) ([]net.IP, error) {
	return func(_ context.Context, host string) ([]net.IP, error) {
		var out []net.IP
		for _, s := range strings.Split(m[host], ",") {
			if ip := net.ParseIP(s); ip != nil {
				out = append(out, ip)
			}
		}
		if len(out) == 0 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return out, nil
	}
}

func CardJSON(aguiURL string) map[string]any {
	return map[string]any{
		"name": "Test Agent",
		"capabilities": map[string]any{"extensions": []any{map[string]any{
			"uri": protocol.ExtensionURI,
			"params": map[string]any{
				"schemaVersion":        "0.1",
				"agui":                 map[string]any{"url": aguiURL, "transport": "websocket"},
				"voice":                map[string]any{"owner": "client"},
				"physicalObservations": map[string]any{"accepted": []any{"nfc", "photo"}, "agentRequests": []any{"nfc", "photo"}},
			},
		}}},
	}
}

// ReadClient reads and parses one client message in a script.
func ReadClient(ctx context.Context, t testing.TB, c *websocket.Conn) *protocol.ClientMessage {
	frame, err := wsframe.Read(ctx, c)
	if err != nil {
		return nil
	}
	m, err := protocol.ParseClientMessage(frame)
	if err != nil {
		t.Errorf("client sent an invalid message: %v", err)
		return nil
	}
	return m
}

func WriteEnv(ctx context.Context, c *websocket.Conn, seq int64, ev protocol.Event) error {
	b, err := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: seq, Event: ev})
	if err != nil {
		return err
	}
	return wsframe.Write(ctx, c, b)
}

// SetHandler replaces the whole HTTP handler (for redirect and oversize tests).
func (a *Server) SetHandler(h http.Handler) { a.srv.Config.Handler = h }

// Params returns the AgentCall params object of the served card, to edit.
func (a *Server) Params() map[string]any {
	return a.Card["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
}
