package hostileagent

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rawClient is a WebSocket client framed by hand, so a test sees exactly
// what the agent wrote (a library would refuse a 1 GiB header before the
// test could look at it).
type rawClient struct {
	t  *testing.T
	nc net.Conn
	br *bufio.Reader
}

// serve starts an agent in mode on 127.0.0.1; Close runs at cleanup.
func serve(t *testing.T, mode Mode) (*Agent, *httptest.Server) {
	t.Helper()
	a := New(&Options{Mode: mode, FloodDelta: 100})
	srv := httptest.NewServer(a)
	t.Cleanup(func() { a.Close(); srv.Close() })
	return a, srv
}

func dialRaw(t *testing.T, srv *httptest.Server) *rawClient {
	t.Helper()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	nc.SetDeadline(time.Now().Add(10 * time.Second))
	var k [16]byte
	rand.Read(k[:])
	key := base64.StdEncoding.EncodeToString(k[:])
	fmt.Fprintf(nc, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", AGUIPath, srv.Listener.Addr(), key)
	br := bufio.NewReader(nc)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != acceptKey(key) {
		t.Fatalf("upgrade answered %s, accept %q", resp.Status, resp.Header.Get("Sec-WebSocket-Accept"))
	}
	return &rawClient{t: t, nc: nc, br: br}
}

// send writes one masked client frame.
func (c *rawClient) send(op byte, payload string) {
	c.t.Helper()
	b := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n <= 0xFFFF:
		b = binary.BigEndian.AppendUint16(append(b, 0x80|126), uint16(n))
	default:
		b = binary.BigEndian.AppendUint64(append(b, 0x80|127), uint64(n))
	}
	mask := [4]byte{1, 2, 3, 4}
	b = append(b, mask[:]...)
	for i := range len(payload) {
		b = append(b, payload[i]^mask[i%4])
	}
	if _, err := c.nc.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

func (c *rawClient) text(msg string) { c.send(opText, msg) }

func (c *rawClient) frame() frame {
	c.t.Helper()
	f, err := readFrame(c.br)
	if err != nil {
		c.t.Fatalf("reading a frame: %v", err)
	}
	if !f.fin {
		c.t.Fatal("the agent fragmented a frame")
	}
	return f
}

// event reads the next envelope and returns its event with exact keys.
func (c *rawClient) event(wantSeq int64) map[string]any {
	c.t.Helper()
	f := c.frame()
	if f.op != opText {
		c.t.Fatalf("frame op %#x, want text", f.op)
	}
	var env struct {
		Sequence int64          `json:"sequence"`
		Event    map[string]any `json:"event"`
	}
	if err := json.Unmarshal(f.payload, &env); err != nil {
		c.t.Fatalf("envelope %.200q: %v", f.payload, err)
	}
	if env.Sequence != wantSeq {
		c.t.Fatalf("sequence %d, want %d", env.Sequence, wantSeq)
	}
	return env.Event
}

// start sends session.start and expects session.established.
func (c *rawClient) start() {
	c.t.Helper()
	c.text(`{"type":"session.start","sessionId":"t-1","clientCapabilities":{"physicalObservations":{"modalities":["nfc"]}}}`)
	if ev := c.event(1); ev["type"] != "session.established" || ev["resumed"] != false {
		c.t.Fatalf("first event %v", ev)
	}
}

// turn serves an agent in mode, starts a session with it and sends a first
// user turn.
func turn(t *testing.T, mode Mode) (*Agent, *rawClient) {
	t.Helper()
	a, srv := serve(t, mode)
	c := dialRaw(t, srv)
	c.start()
	c.text(`{"type":"user.turn","turn":1,"text":"go"}`)
	return a, c
}

// expectEnd asserts the agent ends the TCP connection within d, after at
// most a close frame whose status it returns (0 without one).
func (c *rawClient) expectEnd(d time.Duration) int {
	c.t.Helper()
	c.nc.SetReadDeadline(time.Now().Add(d))
	code := 0
	for {
		f, err := readFrame(c.br)
		if err == io.EOF || (err != nil && strings.Contains(err.Error(), "reset")) {
			return code
		}
		if err != nil {
			c.t.Fatalf("the connection did not end: %v", err)
		}
		if f.op != opClose || len(f.payload) < 2 {
			c.t.Fatalf("frame op %#x before the end", f.op)
		}
		code = int(binary.BigEndian.Uint16(f.payload))
	}
}

// waitConns waits until the agent has recorded n finished connections.
func waitConns(t *testing.T, a *Agent, n int) []Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if a.Wait(ctx, func() bool { return len(a.Conns()) >= n }) == nil {
		return a.Conns()
	}
	t.Fatalf("the agent recorded %d finished connections, want %d", len(a.Conns()), n)
	return nil
}

func httptestServer(t *testing.T, a *Agent) *httptest.Server {
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv
}
