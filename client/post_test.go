package client_test

import (
	"context"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
)

// collector is an HTTPS server on loopback that records what is posted to it.
type collector struct {
	srv  *httptest.Server
	mu   sync.Mutex
	got  []string // method path content-type disposition body
	code int
}

func newCollector(t *testing.T) *collector {
	c := &collector{code: http.StatusCreated}
	c.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.got = append(c.got, strings.Join([]string{r.Method, r.URL.Path, r.Header.Get("Content-Type"), r.Header.Get("Content-Disposition"), r.Header.Get("Authorization"), string(b)}, "|"))
		if c.code == http.StatusFound {
			http.Redirect(w, r, "https://elsewhere.test/reports", http.StatusFound)
			return
		}
		w.WriteHeader(c.code)
	}))
	t.Cleanup(c.srv.Close)
	return c
}

// policy trusts the collector's certificate and allows loopback, as the
// local-development policy does.
func (c *collector) policy() *client.Policy {
	pool := x509.NewCertPool()
	pool.AddCert(c.srv.Certificate())
	p := &client.Policy{AllowInsecureLocal: true}
	p.TLSConfig = c.srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	p.TLSConfig.RootCAs = pool
	return p
}

func (c *collector) setCode(code int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.code = code
}

func (c *collector) posts() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.got...)
}

// TestPostToACollector: the body arrives whole with its type and offered
// file name, and no credentials.
func TestPostToACollector(t *testing.T) {
	c := newCollector(t)
	err := client.Post(context.Background(), c.srv.URL+"/acbridge/reports", []byte(`{"accepted":true}`), c.policy(),
		&client.PostOptions{FileName: "lobby-7-20261201T030000Z.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := `POST|/acbridge/reports|application/json|attachment; filename="lobby-7-20261201T030000Z.json"||{"accepted":true}`
	if got := c.posts(); len(got) != 1 || got[0] != want {
		t.Errorf("the collector got %q, want %q", got, want)
	}
}

// TestPostRefusals: the agent's network policy applies (no plain http
// beyond loopback, no loopback without the local policy, no private
// address), redirects are not followed, and a refusing collector is an
// error naming its status; nothing refused by the policy reaches it.
func TestPostRefusals(t *testing.T) {
	ctx := context.Background()
	c := newCollector(t)
	for _, tc := range []struct {
		name, url string
		policy    func(*client.Policy)
	}{
		{"loopback without the local policy", c.srv.URL + "/r", func(p *client.Policy) { p.AllowInsecureLocal = false }},
		{"http to a public address", "http://public.test/r", func(p *client.Policy) {
			p.LookupIP = clienttest.LookupTable(map[string]string{"public.test": "93.184.216.34"})
		}},
		{"private address", "https://lan.test/r", func(p *client.Policy) {
			p.LookupIP = clienttest.LookupTable(map[string]string{"lan.test": "10.1.2.3"})
		}},
		{"credentials in the URL", "https://user:secret@127.0.0.1/r", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := c.policy()
			if tc.policy != nil {
				tc.policy(p)
			}
			err := client.Post(ctx, tc.url, []byte("{}"), p, nil)
			if !errors.Is(err, client.ErrPolicy) {
				t.Fatalf("want a policy refusal, got %v", err)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("the error repeats the URL's password: %v", err)
			}
		})
	}
	if got := c.posts(); len(got) != 0 {
		t.Errorf("refused posts reached the collector: %q", got)
	}

	c.setCode(http.StatusFound)
	if err := client.Post(ctx, c.srv.URL+"/r", []byte("{}"), c.policy(), nil); !errors.Is(err, client.ErrPolicy) || !strings.Contains(err.Error(), "redirect") {
		t.Errorf("a redirect: want a refusal, got %v", err)
	}
	c.setCode(http.StatusForbidden)
	if err := client.Post(ctx, c.srv.URL+"/r", []byte("{}"), c.policy(), nil); err == nil || !strings.Contains(err.Error(), "HTTP 403") {
		t.Errorf("a 403: want an error naming it, got %v", err)
	}
	c.srv.Close()
	if err := client.Post(ctx, c.srv.URL+"/r?key=collector-secret", []byte("{}"), c.policy(), nil); err == nil || strings.Contains(err.Error(), "collector-secret") {
		t.Errorf("a collector that is gone: want an error without the URL's query, got %v", err)
	}
	if err := client.Post(ctx, "/relative", []byte("{}"), c.policy(), nil); err == nil || errors.Is(err, client.ErrPolicy) {
		t.Errorf("a relative URL: want a usage error, got %v", err)
	}
}
