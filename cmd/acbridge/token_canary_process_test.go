package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/pion/datachannel"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
)

// tokenCanary is the bearer token of TestRunTokenNeverShown: the agents
// there quote the Authorization header back in every text they control.
const tokenCanary = "tok-CANARY-4f1d7c93e0"

// A token-quoting agent on every error path of discovery, the WebSocket and
// WebRTC: the token the daemon sent appears in none of its outputs —
// stdout, the log, the status line (sd_notify STATUS) or the kiosk page's
// state — in any letter case, while each path is seen to be taken.
func TestRunTokenNeverShown(t *testing.T) {
	// Each case's agent: handler serves it; seen is a line of stdout that
	// shows the path was taken (the agent's own text is seen redacted).
	cases := []struct {
		name    string
		handler func(t *testing.T, base func() string) http.Handler
		seen    string
	}{
		{"card refused with the header in body and headers", func(t *testing.T, _ func() string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				quote(w, r, http.StatusBadRequest)
			})
		}, "the agent card request failed: HTTP 400"},
		{"card with the header as content type", func(t *testing.T, _ func() string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/"+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
				io.WriteString(w, "{}")
			})
		}, "the agent card has content type"},
		{"card naming the token as the AG-UI host", func(t *testing.T, _ func() string) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				host := strings.ToLower(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) + ".invalid"
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(clienttest.CardJSON("http://" + host + "/agui"))
			})
		}, "[not connected: "},
		{"WebSocket upgrade refused quoting the header", func(t *testing.T, base func() string) http.Handler {
			return cardThen(base, "websocket", func(w http.ResponseWriter, r *http.Request) { quote(w, r, http.StatusBadRequest) })
		}, "connecting to the AG-UI WebSocket"},
		{"WebSocket session refused by a failure quoting the header", func(t *testing.T, base func() string) http.Handler {
			return cardThen(base, "websocket", func(w http.ResponseWriter, r *http.Request) {
				wsScript(t, w, r, func(ctx context.Context, c *websocket.Conn, echo string) {
					clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventFailure, Code: "auth.refused", Message: "refused " + echo})
				})
			})
		}, "the agent refused the session: auth.refused"},
		{"WebSocket session quoting the header in events and the close reason", func(t *testing.T, base func() string) http.Handler {
			return cardThen(base, "websocket", func(w http.ResponseWriter, r *http.Request) {
				wsScript(t, w, r, func(ctx context.Context, c *websocket.Conn, echo string) {
					for i, ev := range leakyEvents(echo) {
						clienttest.WriteEnv(ctx, c, int64(i+1), ev)
					}
					c.Close(websocket.StatusPolicyViolation, "bye "+echo)
				})
			})
		}, "agent asks: "},
		{"SDP offer refused quoting the header in body and headers", func(t *testing.T, base func() string) http.Handler {
			return cardThen(base, "webrtc", func(w http.ResponseWriter, r *http.Request) { quote(w, r, http.StatusBadRequest) })
		}, "the agent refused the SDP offer: HTTP 400"},
		{"SDP answer with the header as content type", func(t *testing.T, base func() string) http.Handler {
			return cardThen(base, "webrtc", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/"+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
				io.WriteString(w, "v=0\r\n")
			})
		}, "the SDP answer has content type"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var srv *httptest.Server
			srv = httptest.NewServer(tc.handler(t, func() string { return srv.URL }))
			t.Cleanup(srv.Close)
			canaryDaemon(t, strings.TrimPrefix(srv.URL, "http://"), tc.seen)
		})
	}
	t.Run("WebRTC session quoting the header in events", func(t *testing.T) {
		t.Parallel()
		f := clienttest.NewRTCFake(t)
		// The fake's card requires no token, so the daemon sends it anyway
		// (it goes to the card's origin) and the script quotes it.
		f.Script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
			if !clienttest.Establish(ctx, t, raw) {
				return
			}
			for i, ev := range leakyEvents("Bearer " + tokenCanary)[1:] {
				env, _ := protocol.MarshalEnvelope(&protocol.Envelope{Sequence: int64(i + 2), Event: ev})
				if _, err := raw.WriteDataChannel(env, true); err != nil {
					return
				}
			}
			// Wait for the client to close.
			buf := make([]byte, protocol.MaxFrameBytes)
			for {
				if _, _, err := raw.ReadDataChannel(buf); err != nil {
					return
				}
			}
		}
		canaryDaemon(t, strings.TrimPrefix(f.Srv.URL, "http://"), "agent asks: ")
	})
}

// quote answers with status, the request's Authorization header in the
// body and in headers.
func quote(w http.ResponseWriter, r *http.Request, status int) {
	echo := r.Header.Get("Authorization")
	w.Header().Set("X-Echo", echo)
	w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+echo+`"`)
	http.Error(w, "you sent "+echo+" and "+strings.ToLower(echo), status)
}

// cardThen serves a card of transport naming base()+"/agui", and agui there.
func cardThen(base func() string, transport string, agui http.HandlerFunc) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc(client.CardPath, func(w http.ResponseWriter, r *http.Request) {
		card := clienttest.CardJSON(base() + "/agui")
		if transport == "webrtc" {
			card = clienttest.RTCCardJSON(base() + "/agui")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(card)
	})
	mux.HandleFunc("/agui", agui)
	return mux
}

// wsScript accepts the WebSocket, reads session.start and runs script with
// the Authorization header the upgrade carried.
func wsScript(t *testing.T, w http.ResponseWriter, r *http.Request, script func(ctx context.Context, c *websocket.Conn, echo string)) {
	echo := r.Header.Get("Authorization")
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.WSBinding}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	if clienttest.ReadClient(ctx, t, c) == nil {
		return
	}
	script(ctx, c, echo)
	// Drain until the client goes.
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// leakyEvents is a session quoting echo in every text the agent controls:
// answer text, a failure's message and code, a request's prompts.
func leakyEvents(echo string) []protocol.Event {
	code := strings.ToLower(strings.TrimPrefix(echo, "Bearer "))
	return []protocol.Event{
		{Type: protocol.EventSessionEstablished},
		{Type: protocol.EventRunStarted},
		{Type: protocol.EventTextDelta, Text: "you sent " + echo},
		{Type: protocol.EventFailure, Code: code, Message: "denied " + strings.ToUpper(echo)},
		{Type: protocol.EventInteractionRequested, InteractionID: "i-1", Kind: protocol.KindNFCScan,
			Prompt: "scan " + echo, SpokenPrompt: "say " + echo},
		{Type: protocol.EventRunCompleted},
	}
}

// canaryDaemon runs the daemon with tokenCanary against the agent at addr,
// a kiosk page and a status socket, waits until stdout shows seen (the path
// was taken) and the session's end, unless a request is left pending, and
// checks that no output carries the token.
func canaryDaemon(t *testing.T, addr, seen string) {
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(tokenCanary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sock, status := notifySocket(t, dir)
	spoken, tts := ttsConfig(dir)
	d := newDaemonAgent(t, dir, addr, []string{fmt.Sprintf("token_file = %q", tokenFile)},
		append(tts, "[kiosk]", `listen = "127.0.0.1:0"`, browserUser(t, false))...)
	d.cmd.Env = append(d.cmd.Env, "NOTIFY_SOCKET="+sock)
	d.start()
	d.wait(d.err, "kiosk page ready", 1)
	m := regexp.MustCompile(`kiosk page ready.* url=(\S+)`).FindStringSubmatch(d.err.String())
	if m == nil {
		t.Fatalf("no kiosk URL in:\n%s", d.err.String())
	}
	page, pageEnded := kioskStates(t, m[1])
	d.wait(d.out, seen, 1)
	if seen != "agent asks: " { // a pending request keeps such a session
		d.wait(d.out, "[not connected", 1)
	}
	// Everything the daemon says is whole once it has stopped: its speech
	// (waited for at exit), its status (STOPPING=1 is its last) and the
	// page's stream (which its stop ends).
	d.stop()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := status.Wait(ctx, "STOPPING=1", 1); err != nil {
		t.Errorf("no STOPPING=1 on the status socket:\n%s", status.String())
	}
	select {
	case <-pageEnded:
	case <-ctx.Done():
		t.Error("the kiosk page's stream did not end with the daemon")
	}
	speech, _ := os.ReadFile(spoken)
	outputs := map[string]string{"stdout": d.out.String(), "log": d.err.String(), "status": status.String(), "kiosk page": page.String(), "speech": string(speech)}
	for name, s := range outputs {
		if strings.Contains(strings.ToLower(s), strings.ToLower(tokenCanary)) {
			t.Errorf("%s carries the token:\n%s", name, lineWith(strings.ToLower(s), strings.ToLower(tokenCanary)))
		}
	}
	if !strings.Contains(page.String(), `"connection"`) {
		t.Errorf("the kiosk page stream delivered no state: %.200s", page.String())
	}
	t.Logf("stdout: %s", lastLines(d.out.String(), 4))
}

// kioskStates reads the kiosk page's state stream, as its page does, until
// the test ends or the stream does (ended is closed then).
func kioskStates(t *testing.T, url string) (got *bridgetest.Transcript, ended <-chan struct{}) {
	got = &bridgetest.Transcript{}
	done := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	base := strings.TrimSuffix(url, "/")
	page, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	html, _ := io.ReadAll(page.Body)
	page.Body.Close()
	tok := regexp.MustCompile(`name="acbridge-token" content="([^"]+)"`).FindSubmatch(html)
	if tok == nil {
		t.Fatal("no token in the kiosk page")
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/events?token="+string(tok[1]), nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("kiosk stream: HTTP %d", resp.StatusCode)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<16), 1<<20)
		for sc.Scan() {
			fmt.Fprintln(got, sc.Text())
		}
	}()
	return got, done
}
