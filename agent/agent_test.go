package agent

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

func fetchCard(t *testing.T, ta *testAgent) (*protocol.Card, []byte) {
	t.Helper()
	resp, err := http.Get(ta.srv.URL + CardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, protocol.MaxCardBytes+1))
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("card: %s %s", resp.Status, resp.Header.Get("Content-Type"))
	}
	card, err := protocol.ParseCard(raw)
	if err != nil {
		t.Fatalf("card does not pass protocol.ParseCard: %v\n%s", err, raw)
	}
	return card, raw
}

func TestCard(t *testing.T) {
	ta := startAgent(t, nil)
	card, raw := fetchCard(t, ta)
	p := card.Params
	both := []protocol.Modality{protocol.NFC, protocol.Photo}
	switch {
	case card.URI != protocol.ExtensionURI || card.Legacy:
		t.Errorf("extension URI %s", card.URI)
	case p.AGUI.Transport != protocol.TransportWebSocket:
		t.Errorf("transport %s", p.AGUI.Transport)
	case p.AGUI.URL != ta.srv.URL+AGUIPath:
		t.Errorf("agui url %s, want %s", p.AGUI.URL, ta.srv.URL+AGUIPath)
	case p.Voice.Owner != "client":
		t.Errorf("voice owner %q", p.Voice.Owner)
	case !slices.Equal(p.PhysicalObservations.Accepted, both) || !slices.Equal(p.PhysicalObservations.AgentRequests, both):
		t.Errorf("modalities %+v", p.PhysicalObservations)
	case p.AGUI.Session == nil || p.AGUI.Session.Resume || p.AGUI.Session.Replay:
		t.Errorf("session %+v: resume and replay must be advertised false", p.AGUI.Session)
	case card.Usable() != nil:
		t.Errorf("card unusable: %v", card.Usable())
	}
	// The A2A 1.0 required members are present; no A2A interface is claimed.
	for _, k := range []string{`"name"`, `"description"`, `"version"`, `"supportedInterfaces": []`, `"capabilities"`, `"defaultInputModes"`, `"defaultOutputModes"`, `"skills"`} {
		if !strings.Contains(string(raw), k) {
			t.Errorf("card lacks %s", k)
		}
	}
	if strings.Contains(string(raw), "securitySchemes") {
		t.Error("a card without a token declares a security scheme")
	}
}

func TestCardPublicURLAndOptions(t *testing.T) {
	ta := startAgent(t, &Options{PublicURL: "https://agent.example/base/", Name: "Kiosk test agent", Accepted: []protocol.Modality{protocol.NFC}, AgentRequests: []protocol.Modality{}})
	card, _ := fetchCard(t, ta)
	if card.Params.AGUI.URL != "https://agent.example/base/agui" || card.Name != "Kiosk test agent" {
		t.Errorf("card %+v", card)
	}
	if !card.Accepts(protocol.NFC) || card.Accepts(protocol.Photo) || card.Requests(protocol.NFC) {
		t.Errorf("modalities %+v", card.Params.PhysicalObservations)
	}
}

func TestCheckPublicURL(t *testing.T) {
	for _, ok := range []string{"https://agent.example", "http://127.0.0.1:8080", "https://agent.example/prefix"} {
		if err := CheckPublicURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "agent.example", "ftp://agent.example", "https://", "https://user:pw@agent.example", "https://agent.example/?q=1", "https://agent.example/#f", "::"} {
		if err := CheckPublicURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// New refuses options it cannot serve with an error naming the fix, never a
// panic: the modality lists as ParseCard checks a card's.
func TestNewRefusesBadOptions(t *testing.T) {
	nfc, photo := protocol.NFC, protocol.Photo
	for _, c := range []struct {
		opts Options
		want string
	}{
		{Options{Transport: "carrier-pigeon"}, "not supported"},
		{Options{PublicURL: "agent.example"}, "public URL"},
		{Options{Physical: true, Accepted: []protocol.Modality{nfc}, AgentRequests: []protocol.Modality{photo}}, "every requested modality must be accepted"},
		{Options{Physical: true, Accepted: []protocol.Modality{nfc, nfc}}, "twice"},
		{Options{Physical: true, Accepted: []protocol.Modality{nfc, photo, nfc}}, "at most two"},
		{Options{Physical: true, Accepted: []protocol.Modality{"smell"}}, "nfc and photo"},
		{Options{Accepted: []protocol.Modality{nfc}}, "need Physical"},
	} {
		a, err := New(&c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%+v) = %v, %v; want an error saying %q", c.opts, a, err, c.want)
		}
	}
}

// The spec's reference agent is text-only by default ("Its ordinary public
// review profile remains text-only"); the physical proof is opt-in.
func TestTextOnlyByDefault(t *testing.T) {
	a, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()
	card, _ := fetchCard(t, &testAgent{Agent: a, srv: srv})
	if p := card.Params.PhysicalObservations; len(p.Accepted) != 0 || len(p.AgentRequests) != 0 {
		t.Fatalf("default card declares physical modalities %+v", p)
	}
	// A client offering both gets no usable modality; a scan is refused.
	c := startSession(t, &testAgent{Agent: a, srv: srv}, both...)
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: object(ref("x"))})
	c.expectFailure(protocol.CodeObservationNegotiation)
	if got := c.say("scan an object"); got != textCannotRequestNFC {
		t.Fatalf("scan request on a text-only agent: %q", got)
	}
}

// LegacyURI serves the legacy identifier for rollback tests with an older
// client; the card stays otherwise the same and valid.
func TestLegacyURICard(t *testing.T) {
	ta := startAgent(t, &Options{LegacyURI: true})
	card, raw := fetchCard(t, ta)
	if !card.Legacy || card.URI != protocol.LegacyExtensionURI || strings.Contains(string(raw), protocol.ExtensionURI) {
		t.Fatalf("card declares %s (legacy %v)", card.URI, card.Legacy)
	}
}

const canaryToken = "tok-CANARY-5f2b9e"

func TestTokenRequired(t *testing.T) {
	ta := startAgent(t, &Options{Token: canaryToken})
	// The card stays public and says a bearer token is needed.
	_, raw := fetchCard(t, ta)
	if !strings.Contains(string(raw), `"httpAuthSecurityScheme"`) || !strings.Contains(string(raw), `"Bearer"`) {
		t.Errorf("card does not declare the bearer scheme:\n%s", raw)
	}
	if strings.Contains(string(raw), canaryToken) {
		t.Fatal("the card contains the token")
	}
	for name, h := range map[string]string{
		"none":         "",
		"wrong":        "Bearer tok-CANARY-5f2b9f",
		"prefix":       "Bearer " + canaryToken[:len(canaryToken)-1],
		"longer":       "Bearer " + canaryToken + "x",
		"basic scheme": "Basic " + canaryToken,
		"no scheme":    canaryToken,
	} {
		hdr := http.Header{}
		if h != "" {
			hdr.Set("Authorization", h)
		}
		conn, resp, err := dialHeader(t, ta, hdr)
		if err == nil {
			_ = conn.CloseNow()
			t.Errorf("%s: connected without the right token", name)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: %s, want 401 with WWW-Authenticate", name, statusOf(resp, err))
		}
	}
	for _, h := range []string{"Bearer " + canaryToken, "bearer " + canaryToken} {
		conn, resp, err := dialHeader(t, ta, http.Header{"Authorization": {h}})
		if err != nil {
			t.Fatalf("right token refused: %s", statusOf(resp, err))
		}
		c := &client{t: t, conn: conn}
		c.send(&protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "tok"})
		c.expect(protocol.EventSessionEstablished)
		_ = conn.Close(websocket.StatusNormalClosure, "")
	}
	if strings.Contains(ta.logs.String(), canaryToken) || strings.Contains(ta.logs.String(), "5f2b9f") {
		t.Fatal("a token reached the log")
	}
}

// Origin: none (a kiosk client) and same-origin are accepted; a foreign
// web page is not.
func TestOriginCheck(t *testing.T) {
	ta := startAgent(t, nil)
	conn, _, err := dialHeader(t, ta, http.Header{"Origin": {ta.srv.URL}})
	if err != nil {
		t.Fatalf("same origin refused: %v", err)
	}
	_ = conn.CloseNow()
	conn, resp, err := dialHeader(t, ta, http.Header{"Origin": {"https://evil.example"}})
	if err == nil {
		_ = conn.CloseNow()
		t.Fatal("foreign origin accepted")
	}
	if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: %s, want 403", statusOf(resp, err))
	}
}

func TestMaxSessions(t *testing.T) {
	released := make(chan struct{}, 4)
	ta := startAgent(t, &Options{MaxSessions: 1, released: func() {
		select {
		case released <- struct{}{}:
		default: // one token is enough: the test waits for the first
		}
	}})
	first := startSession(t, ta, both...)
	conn, resp, err := dialHeader(t, ta, nil)
	if err == nil {
		_ = conn.CloseNow()
		t.Fatal("second session accepted over the limit")
	}
	if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("over the limit: %s, want 503", statusOf(resp, err))
	}
	first.send(&protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	first.expectClose(websocket.StatusNormalClosure)
	// The slot is released once the first connection's goroutine returned,
	// and a dial after that is served.
	select {
	case <-released:
	case <-time.After(ioTimeout):
		t.Fatal("slot never released")
	}
	conn, _, err = dialHeader(t, ta, nil)
	if err != nil {
		t.Fatalf("after the slot was released: %v", err)
	}
	_ = conn.CloseNow()
}

// Close ends open sessions with 1001, waits for their goroutines (goleak
// checks none is left) and refuses new ones.
func TestCloseEndsSessions(t *testing.T) {
	ta := startAgent(t, nil)
	c := startSession(t, ta, both...)
	idle := dial(t, ta) // connected, never started
	// Half-way into a request: the run is open, an interaction pending.
	c.request("scan an object")
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ta.Close()
	}()
	c.expectClose(websocket.StatusGoingAway)
	idle.expectClose(websocket.StatusGoingAway)
	select {
	case <-done:
	case <-time.After(ioTimeout):
		t.Fatal("Close did not return")
	}
	if err := ta.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, resp, err := dialHeader(t, ta, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %s, want 503", statusOf(resp, err))
	}
}

// A silent connection — idle, or half-open because the peer vanished — is
// closed after IdleTimeout and its goroutine returns.
func TestIdleConnectionIsClosed(t *testing.T) {
	ta := startAgent(t, &Options{IdleTimeout: 200 * time.Millisecond})
	c := startSession(t, ta, both...)
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	_, _, err := c.conn.Read(ctx)
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Fatalf("idle: %v, want close 1008", err)
	}
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Reason != "idle" {
		t.Fatalf("idle close reason: %v", err)
	}
	// Activity keeps a connection open past the timeout.
	d := startSession(t, ta, both...)
	for start := time.Now(); time.Since(start) < 2*ta.idle; {
		d.scan(ref("a"))
	}
}

// Nothing the client sends — labels, object references, image bytes — nor
// the token reaches the log.
func TestLogsCarryNoContent(t *testing.T) {
	logs := &syncbuf.Buffer{}
	ta := startAgent(t, &Options{Token: canaryToken, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	conn, _, err := dialHeader(t, ta, http.Header{"Authorization": {"Bearer " + canaryToken}})
	if err != nil {
		t.Fatal(err)
	}
	c := &client{t: t, conn: conn}
	c.send(&protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "sess-CANARY", ClientCapabilities: &protocol.ClientCapabilities{
		PhysicalObservations: &protocol.PhysicalCapabilities{Modalities: both},
	}})
	c.expect(protocol.EventSessionEstablished)
	c.scan(ref("objCANARY"))
	c.say("teach object LabelCANARY")
	c.say("confirm object")
	ev := c.request("take a photo")
	c.answer(ev.InteractionID, photoObs(t))
	c.expect(protocol.EventInteractionResolved, protocol.EventTextDelta, protocol.EventRunCompleted)
	c.sendJSON(observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) { i.PixelWidth = 3 })))
	c.expectFailure(protocol.CodeImageDimensions)
	c.writeRaw(websocket.MessageText, []byte("teach object TextCANARY"))
	c.expectFailure(protocol.CodeFrameJSON)
	c.send(&protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	c.expectClose(websocket.StatusNormalClosure)
	_ = ta.Close()
	out := logs.String()
	if !strings.Contains(out, "session started") || !strings.Contains(out, "image.dimensions") {
		t.Fatalf("log lacks the expected events:\n%s", out)
	}
	for _, canary := range []string{"CANARY", canaryToken, "/9j/", "1586a6324530"} {
		if strings.Contains(out, canary) {
			t.Fatalf("log contains %q:\n%s", canary, out)
		}
	}
}

// A half-open peer — it completed the upgrade, then never sends or answers
// anything, not even the close handshake — is reaped: the agent closes the
// TCP connection after IdleTimeout plus the library's bounded close wait,
// and goleak (TestMain) proves its goroutine returned.
func TestHalfOpenConnectionIsReaped(t *testing.T) {
	ta := startAgent(t, &Options{IdleTimeout: 100 * time.Millisecond})
	raw, err := net.Dial("tcp", ta.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	req := "GET " + AGUIPath + " HTTP/1.1\r\nHost: " + ta.srv.Listener.Addr().String() +
		"\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
	if _, err := raw.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	_ = raw.SetReadDeadline(time.Now().Add(3 * ioTimeout))
	got, err := io.ReadAll(raw) // everything until the agent hangs up
	if err != nil {
		t.Fatalf("agent never closed the half-open connection: %v", err)
	}
	if !strings.HasPrefix(string(got), "HTTP/1.1 101") {
		t.Fatalf("upgrade answer: %q", got)
	}
}
