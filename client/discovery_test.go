package client

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

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
	a := newTestAgent(t, idle)
	ag, err := Discover(context.Background(), a.base(), "", a.policy())
	if err != nil {
		t.Fatal(err)
	}
	if ag.Origin != a.base() || ag.WSURL.Scheme != "wss" || !ag.Card.Accepts(protocol.Photo) {
		t.Fatalf("origin %s ws %s", ag.Origin, ag.WSURL)
	}
}

func TestDiscoverRefusals(t *testing.T) {
	ctx := context.Background()
	a := newTestAgent(t, idle)
	cases := []struct {
		name   string
		base   string
		policy func(p *Policy)
		is     error
	}{
		{"http without local policy", "http://127.0.0.1:1", func(p *Policy) { p.AllowInsecureLocal = false }, ErrPolicy},
		{"http to a public address", "http://public.test", func(p *Policy) { p.LookupIP = lookupTable(map[string]string{"public.test": "93.184.216.34"}) }, ErrPolicy},
		{"loopback without local policy", a.base(), func(p *Policy) { p.AllowInsecureLocal = false }, ErrPolicy},
		{"private address", "https://lan.test", func(p *Policy) { p.LookupIP = lookupTable(map[string]string{"lan.test": "10.1.2.3"}) }, ErrPolicy},
		{"private beside public", "https://mixed.test", func(p *Policy) { p.LookupIP = lookupTable(map[string]string{"mixed.test": "93.184.216.34,192.168.1.9"}) }, ErrPolicy},
		{"link-local", "https://[fe80::1]", nil, ErrPolicy},
		{"metadata address", "https://169.254.169.254", nil, ErrPolicy},
		{"multicast", "https://224.0.0.1", nil, ErrPolicy},
		{"unspecified", "https://0.0.0.0", nil, ErrPolicy},
		{"cgnat", "https://100.64.0.1", nil, ErrPolicy},
		{"userinfo", "https://user:pass@agent.test", nil, ErrPolicy},
		{"ftp", "ftp://agent.test", nil, ErrPolicy},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := a.policy()
			if c.policy != nil {
				c.policy(p)
			}
			_, err := Discover(ctx, c.base, "", p)
			if !errors.Is(err, c.is) {
				t.Fatalf("want %v, got %v", c.is, err)
			}
			if strings.Contains(err.Error(), "pass") {
				t.Errorf("error repeats URL credentials: %v", err)
			}
		})
	}
	if got := a.auth(); len(got) != 0 {
		t.Errorf("refused discoveries still reached the server: %v", got)
	}
}

func TestDiscoverRefusesRedirect(t *testing.T) {
	a := newTestAgent(t, idle)
	mux := http.NewServeMux()
	mux.HandleFunc(CardPath, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "https://other.test/.well-known/agent-card.json", http.StatusFound)
	})
	a.srv.Config.Handler = mux
	_, err := Discover(context.Background(), a.base(), "tok", a.policy())
	if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "redirect") {
		t.Fatalf("want a redirect refusal, got %v", err)
	}
}

func TestDiscoverCardSizeCappedWhileReading(t *testing.T) {
	a := newTestAgent(t, idle)
	mux := http.NewServeMux()
	mux.HandleFunc(CardPath, func(w http.ResponseWriter, r *http.Request) {
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
	a.srv.Config.Handler = mux
	_, err := Discover(context.Background(), a.base(), "", a.policy())
	if !errors.Is(err, ErrIncompatible) || protocol.Codes(errors.Unwrap(err))[0] != protocol.CodeCardSize {
		t.Fatalf("want card.size, got %v", err)
	}
}

func TestDiscoverIncompatibleCards(t *testing.T) {
	a := newTestAgent(t, idle)
	p := a.policy()
	params := a.card["capabilities"].(map[string]any)["extensions"].([]any)[0].(map[string]any)["params"].(map[string]any)
	params["agui"].(map[string]any)["transport"] = "http.sse"
	_, err := Discover(context.Background(), a.base(), "", p)
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "card.transport") {
		t.Fatalf("physical inputs on sse: %v", err)
	}
	delete(params, "physicalObservations")
	_, err = Discover(context.Background(), a.base(), "", p)
	if !errors.Is(err, ErrIncompatible) {
		t.Fatalf("unsupported transport: %v", err)
	}
	a.card = cardJSON("https://" + a.host + "/agui")
	exts := a.card["capabilities"].(map[string]any)["extensions"].([]any)
	a.card["capabilities"].(map[string]any)["extensions"] = append(exts, map[string]any{"uri": "https://vendor.example/ext/secret/1", "required": true})
	_, err = Discover(context.Background(), a.base(), "", p)
	if !errors.Is(err, ErrIncompatible) || !strings.Contains(err.Error(), "card.required") {
		t.Fatalf("unknown required extension: %v", err)
	}
}

func TestTokenOnlyToTheCardsOrigin(t *testing.T) {
	const token = "s3cret-TOKEN-canary"
	a := newTestAgent(t, idle)
	ctx := context.Background()
	// Same origin: the card fetch and the upgrade carry the token.
	ag, err := Discover(ctx, a.base(), token, a.policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.DialWebSocket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
	// Another origin (other host name, same server): no token on the upgrade.
	a.card = cardJSON("https://other.test:" + strings.Split(a.host, ":")[1] + "/agui")
	ag, err = Discover(ctx, a.base(), token, a.policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err = ag.DialWebSocket(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
	want := []string{CardPath + " Bearer " + token, "/agui Bearer " + token, CardPath + " Bearer " + token, "/agui "}
	got := a.auth()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("Authorization headers seen:\n%q\nwant\n%q", got, want)
	}
	if strings.Contains(ag.WSURL.String(), token) {
		t.Error("token in a URL")
	}
}
