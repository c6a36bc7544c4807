package client_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// idle reads until the client goes away, so close handshakes complete.
func idle(ctx context.Context, c *websocket.Conn, _ *http.Request) {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

func TestDiscoverValidCard(t *testing.T) {
	a := clienttest.NewServer(t, idle)
	ag, err := client.Discover(context.Background(), a.Base(), "", a.Policy())
	if err != nil {
		t.Fatal(err)
	}
	if ag.Origin != a.Base() || ag.WSURL.Scheme != "wss" || !ag.Card.Accepts(protocol.Photo) {
		t.Fatalf("origin %s ws %s", ag.Origin, ag.WSURL)
	}
}

func TestDiscoverRefusals(t *testing.T) {
	ctx := context.Background()
	a := clienttest.NewServer(t, idle)
	cases := []struct {
		name   string
		base   string
		policy func(p *client.Policy)
		is     error
	}{
		{"http without local policy", "http://127.0.0.1:1", func(p *client.Policy) { p.AllowInsecureLocal = false }, client.ErrPolicy},
		{"http to a public address", "http://public.test", func(p *client.Policy) {
			p.LookupIP = clienttest.LookupTable(map[string]string{"public.test": "93.184.216.34"})
		}, client.ErrPolicy},
		{"loopback without local policy", a.Base(), func(p *client.Policy) { p.AllowInsecureLocal = false }, client.ErrPolicy},
		{"private address", "https://lan.test", func(p *client.Policy) { p.LookupIP = clienttest.LookupTable(map[string]string{"lan.test": "10.1.2.3"}) }, client.ErrPolicy},
		{"private beside public", "https://mixed.test", func(p *client.Policy) {
			p.LookupIP = clienttest.LookupTable(map[string]string{"mixed.test": "93.184.216.34,192.168.1.9"})
		}, client.ErrPolicy},
		{"link-local", "https://[fe80::1]", nil, client.ErrPolicy},
		{"metadata address", "https://169.254.169.254", nil, client.ErrPolicy},
		{"multicast", "https://224.0.0.1", nil, client.ErrPolicy},
		{"unspecified", "https://0.0.0.0", nil, client.ErrPolicy},
		{"cgnat", "https://100.64.0.1", nil, client.ErrPolicy},
		{"userinfo", "https://user:pass@agent.test", nil, client.ErrPolicy},
		{"ftp", "ftp://agent.test", nil, client.ErrPolicy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := a.Policy()
			if c.policy != nil {
				c.policy(p)
			}
			_, err := client.Discover(ctx, c.base, "", p)
			if !errors.Is(err, c.is) {
				t.Fatalf("want %v, got %v", c.is, err)
			}
			if strings.Contains(err.Error(), "pass") {
				t.Errorf("error repeats URL credentials: %v", err)
			}
		})
	}
	if got := a.Auth(); len(got) != 0 {
		t.Errorf("refused discoveries still reached the server: %v", got)
	}
}

func TestDiscoverRefusesRedirect(t *testing.T) {
	a := clienttest.NewServer(t, idle)
	mux := http.NewServeMux()
	mux.HandleFunc(client.CardPath, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.test/.well-known/agent-card.json", http.StatusFound)
	})
	a.SetHandler(mux)
	_, err := client.Discover(context.Background(), a.Base(), "tok", a.Policy())
	if !errors.Is(err, client.ErrPolicy) || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("want a redirect refusal, got %v", err)
	}
}

func TestDiscoverCardSizeCappedWhileReading(t *testing.T) {
	a := clienttest.NewServer(t, idle)
	mux := http.NewServeMux()
	mux.HandleFunc(client.CardPath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		// Chunked, no Content-Length: the cap must hold while reading.
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for i := 0; i < 64; i++ { // 4 MiB offered
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	})
	a.SetHandler(mux)
	_, err := client.Discover(context.Background(), a.Base(), "", a.Policy())
	if !errors.Is(err, client.ErrIncompatible) || protocol.Codes(errors.Unwrap(err))[0] != protocol.CodeCardSize {
		t.Fatalf("want card.size, got %v", err)
	}
}

func TestDiscoverIncompatibleCards(t *testing.T) {
	a := clienttest.NewServer(t, idle)
	p := a.Policy()
	params := a.Card["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	params["agui"].(map[string]any)["transport"] = "http.sse"
	_, err := client.Discover(context.Background(), a.Base(), "", p)
	if !errors.Is(err, client.ErrIncompatible) || !strings.Contains(err.Error(), "card.transport") {
		t.Fatalf("physical inputs on sse: %v", err)
	}
	delete(params, "physicalObservations")
	_, err = client.Discover(context.Background(), a.Base(), "", p)
	if !errors.Is(err, client.ErrIncompatible) {
		t.Fatalf("unsupported transport: %v", err)
	}
	a.Card = clienttest.CardJSON("https://" + a.Host + "/agui")
	exts := a.Card["capabilities"].(map[string]any)["extensions"].([]any)
	a.Card["capabilities"].(map[string]any)["extensions"] = append(exts, map[string]any{"uri": "https://vendor.example/ext/secret/1", "required": true})
	_, err = client.Discover(context.Background(), a.Base(), "", p)
	if !errors.Is(err, client.ErrIncompatible) || !strings.Contains(err.Error(), "card.required") {
		t.Fatalf("unknown required extension: %v", err)
	}
}

func TestTokenOnlyToTheCardsOrigin(t *testing.T) {
	const token = "s3cret-TOKEN-canary"
	a := clienttest.NewServer(t, idle)
	ctx := context.Background()
	// Same origin: the card fetch and the upgrade carry the token.
	ag, err := client.Discover(ctx, a.Base(), token, a.Policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.DialWebSocket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
	// Another origin (other host name, same server): no token on the upgrade.
	a.Card = clienttest.CardJSON("https://other.test:" + strings.Split(a.Host, ":")[1] + "/agui")
	ag, err = client.Discover(ctx, a.Base(), token, a.Policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err = ag.DialWebSocket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
	want := []string{client.CardPath + " Bearer " + token, "/agui Bearer " + token, client.CardPath + " Bearer " + token, "/agui "}
	got := a.Auth()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Authorization headers seen:\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(ag.WSURL.String(), token) {
		t.Error("token in a URL")
	}
}
