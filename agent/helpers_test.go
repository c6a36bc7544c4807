package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// ioTimeout bounds every test read and write; a healthy loopback session
// answers in milliseconds.
const ioTimeout = 10 * time.Second

type testAgent struct {
	*Agent
	srv  *httptest.Server
	logs *syncbuf.Buffer
}

// startAgent serves an Agent on a real loopback listener (httptest binds
// 127.0.0.1). Cleanup closes the Agent before the server: hijacked
// WebSocket connections are the Agent's to end.
func startAgent(t testing.TB, opts *Options) *testAgent {
	t.Helper()
	if opts == nil {
		opts = &Options{}
	}
	logs := &syncbuf.Buffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	// The tests exercise the physical proof, the spec's opt-in developer
	// profile; TestTextOnlyByDefault covers the default.
	opts.Physical = true
	a, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { _ = a.Close() })
	return &testAgent{Agent: a, srv: srv, logs: logs}
}

func (ta *testAgent) wsURL() string { return "ws" + strings.TrimPrefix(ta.srv.URL, "http") + AGUIPath }

// client is a test peer on a real coder/websocket connection.
type client struct {
	t    testing.TB
	conn *websocket.Conn
	seq  int64 // last sequence received
	turn int64 // last turn sent
}

func dialHeader(t testing.TB, ta *testAgent, h http.Header) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, ta.wsURL(), &websocket.DialOptions{HTTPHeader: h})
	if c != nil {
		c.SetReadLimit(protocol.MaxFrameBytes)
	}
	return c, resp, err
}

func dial(t testing.TB, ta *testAgent) *client {
	t.Helper()
	conn, _, err := dialHeader(t, ta, nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	return &client{t: t, conn: conn}
}

// startSession dials and sends session.start with the given modalities
// (nil: no clientCapabilities at all).
func startSession(t testing.TB, ta *testAgent, mods ...protocol.Modality) *client {
	t.Helper()
	c := dial(t, ta)
	m := &protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "test-1"}
	if mods != nil {
		m.ClientCapabilities = &protocol.ClientCapabilities{PhysicalObservations: &protocol.PhysicalCapabilities{Modalities: mods}}
	}
	c.send(m)
	c.expect(protocol.EventSessionEstablished)
	return c
}

var both = []protocol.Modality{protocol.NFC, protocol.Photo}

func (c *client) writeRaw(typ websocket.MessageType, b []byte) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	if err := c.conn.Write(ctx, typ, b); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// send encodes m (checked by protocol, so only valid messages) and sends it.
func (c *client) send(m *protocol.ClientMessage) {
	c.t.Helper()
	b, err := protocol.MarshalClientMessage(m)
	if err != nil {
		c.t.Fatalf("encode %s: %v", m.Type, err)
	}
	c.writeRaw(websocket.MessageText, b)
}

// sendJSON sends any value, valid or not.
func (c *client) sendJSON(v any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.writeRaw(websocket.MessageText, b)
}

func (c *client) readRaw() []byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	typ, b, err := c.conn.Read(ctx)
	if err != nil {
		c.t.Fatalf("read after sequence %d: %v", c.seq, err)
	}
	if typ != websocket.MessageText {
		c.t.Fatalf("agent sent a binary frame")
	}
	return b
}

// next reads one envelope, valid against the events schema and at the next
// sequence.
func (c *client) next() protocol.Envelope {
	c.t.Helper()
	env, err := protocol.ParseEnvelope(c.readRaw())
	if err != nil {
		c.t.Fatalf("agent sent an invalid envelope: %v", err)
	}
	if env.Sequence != c.seq+1 {
		c.t.Fatalf("sequence %d after %d", env.Sequence, c.seq)
	}
	c.seq = env.Sequence
	return *env
}

// expect reads one envelope per type and checks the types.
func (c *client) expect(types ...string) []protocol.Envelope {
	c.t.Helper()
	out := make([]protocol.Envelope, 0, len(types))
	for i, typ := range types {
		env := c.next()
		if env.Event.Type != typ {
			c.t.Fatalf("envelope %d (sequence %d): %s %+v, want %s", i, env.Sequence, env.Event.Type, env.Event, typ)
		}
		out = append(out, env)
	}
	return out
}

// expectFailure reads one failure and checks its code.
func (c *client) expectFailure(code string) protocol.Event {
	c.t.Helper()
	ev := c.expect(protocol.EventFailure)[0].Event
	if ev.Code != code {
		c.t.Fatalf("failure %s (%s), want %s", ev.Code, ev.Message, code)
	}
	return ev
}

// expectClose reads until the connection closes and checks the status.
func (c *client) expectClose(status websocket.StatusCode) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), ioTimeout)
	defer cancel()
	_, b, err := c.conn.Read(ctx)
	if err == nil {
		c.t.Fatalf("want close %d, got frame %s", status, b)
	}
	if got := websocket.CloseStatus(err); got != status {
		c.t.Fatalf("close status %d (%v), want %d", got, err, status)
	}
}

func (c *client) nextTurn() int64 { c.turn++; return c.turn }

// say sends a text turn and returns the run's one text.
func (c *client) say(text string) string {
	c.t.Helper()
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: c.nextTurn(), Text: text})
	return c.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text
}

func object(ref string) *protocol.Observation {
	return &protocol.Observation{
		SchemaVersion: protocol.SchemaVersion, ObservationID: "scan-1", CapturedAt: "2026-09-07T10:00:00Z", Intent: "identify",
		Object: &protocol.Object{ObjectRef: ref, Carrier: protocol.CarrierLocalTag, Assurance: protocol.AssuranceUnverified, PayloadSHA256: strings.Repeat("0", 64)},
	}
}

// photoObs is the golden trace's 2×3 JPEG, a real decodable image.
func photoObs(t testing.TB) *protocol.Observation {
	t.Helper()
	for _, st := range walkthrough(t) {
		var m protocol.ClientMessage
		if err := json.Unmarshal(st.Message, &m); err == nil && m.Observation != nil && m.Observation.Image != nil {
			return m.Observation
		}
	}
	t.Fatal("the walkthrough has no photo")
	return nil
}

// scan sends an unsolicited object observation and returns the run's text.
func (c *client) scan(ref string) string {
	c.t.Helper()
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: object(ref)})
	return c.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text
}

// answer sends an observation for interaction id.
func (c *client) answer(id string, obs *protocol.Observation) {
	c.t.Helper()
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), InteractionID: id, Observation: obs})
}

// request sends a text turn that must open an interaction and returns it.
func (c *client) request(text string) protocol.Event {
	c.t.Helper()
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: c.nextTurn(), Text: text})
	return c.expect(protocol.EventRunStarted, protocol.EventInteractionRequested)[1].Event
}

// walkthrough is the public walkthrough with the reference agent's texts
// (every proposal names its label).
func walkthrough(t testing.TB) []conformance.Step {
	t.Helper()
	return conformance.ReferenceWalkthrough()
}

// sameJSON compares two JSON documents by value.
func sameJSON(a, b []byte) (bool, error) {
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false, err
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return bytes.Equal(xb, yb), nil
}

func ref(name string) string { return protocol.ObjectRefPrefix + name }

func check(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

func statusOf(resp *http.Response, err error) string {
	if resp == nil {
		return fmt.Sprintf("no response (%v)", err)
	}
	return resp.Status
}
