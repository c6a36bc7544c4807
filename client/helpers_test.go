package client

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// testAgent is a real HTTPS + WebSocket server on 127.0.0.1 that serves a
// card and runs script for each AG-UI connection. Its host name is
// agent.test, resolved to 127.0.0.1 by the test policy.
type testAgent struct {
	srv      *httptest.Server
	host     string // agent.test:PORT
	card     map[string]any
	script   func(ctx context.Context, c *websocket.Conn, r *http.Request)
	mu       sync.Mutex
	authSeen []string // Authorization headers seen, per request path
}

func newTestAgent(t *testing.T, script func(ctx context.Context, c *websocket.Conn, r *http.Request)) *testAgent {
	t.Helper()
	a := &testAgent{script: script}
	mux := http.NewServeMux()
	mux.HandleFunc(CardPath, func(w http.ResponseWriter, r *http.Request) {
		a.record(r)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(a.card)
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
	t.Cleanup(a.srv.Close)
	_, port, _ := net.SplitHostPort(a.srv.Listener.Addr().String())
	a.host = "agent.test:" + port
	a.card = cardJSON("https://" + a.host + "/agui")
	return a
}

func (a *testAgent) record(r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.authSeen = append(a.authSeen, r.URL.Path+" "+r.Header.Get("Authorization"))
}

func (a *testAgent) auth() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.authSeen...)
}

func (a *testAgent) base() string { return "https://" + a.host }

// policy trusts the test server's certificate and resolves *.test names to
// loopback, under the local-development policy.
func (a *testAgent) policy() *Policy {
	pool := x509.NewCertPool()
	pool.AddCert(a.srv.Certificate())
	return &Policy{
		AllowInsecureLocal: true,
		TLSConfig:          &tls.Config{RootCAs: pool, ServerName: "example.com"},
		LookupIP:           lookupTable(map[string]string{"agent.test": "127.0.0.1", "other.test": "127.0.0.1"}),
		TotalTimeout:       5 * time.Second,
	}
}

func lookupTable(m map[string]string) func(context.Context, string) ([]net.IP, error) {
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

func cardJSON(aguiURL string) map[string]any {
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

// readClient reads and parses one client message in a script.
func readClient(ctx context.Context, t *testing.T, c *websocket.Conn) *protocol.ClientMessage {
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

func writeEnv(ctx context.Context, c *websocket.Conn, seq int64, ev protocol.Event) error {
	b, err := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: seq, Event: ev})
	if err != nil {
		return err
	}
	return wsframe.Write(ctx, c, b)
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
