package hostileagent

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentcall/acbridge/protocol"
)

// The card passes the client's own card rules, so every mode reaches the
// AG-UI connection.
func TestCardIsValid(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, Flood)
	resp, err := http.Get(srv.URL + CardPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	card, err := protocol.ParseCard(raw)
	if err != nil {
		t.Fatalf("card refused: %v\n%s", err, raw)
	}
	if err := card.Usable(); err != nil || !card.Accepts(protocol.NFC) || !card.Requests(protocol.Photo) {
		t.Fatalf("card not usable with nfc and photo: %v", err)
	}
	if card.Params.AGUI.URL != srv.URL+AGUIPath {
		t.Fatalf("AG-UI URL %q", card.Params.AGUI.URL)
	}
}

// Normal, spoken to by a real WebSocket library: the hand-made framing
// interoperates, and the events pass the 0.1 schema.
func TestNormalWithLibraryClient(t *testing.T) {
	t.Parallel()
	a, srv := serve(t, Normal)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http")+AGUIPath, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	send := func(m string) {
		if err := c.Write(ctx, websocket.MessageText, []byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() protocol.Event {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		env, err := protocol.ParseEnvelope(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return env.Event
	}
	send(`{"type":"session.start","sessionId":"s","clientCapabilities":{}}`)
	if ev := recv(); ev.Type != protocol.EventSessionEstablished {
		t.Fatalf("got %v", ev)
	}
	send(`{"type":"user.turn","turn":1,"text":"hi"}`)
	var got []string
	for range 3 {
		ev := recv()
		got = append(got, ev.Type+":"+ev.Text)
	}
	want := []string{"run.started:", "text.delta:" + VisibleText, "run.completed:"}
	if !slices.Equal(got, want) {
		t.Fatalf("run %q, want %q", got, want)
	}
	send(`{"type":"session.end"}`)
	if _, _, err := c.Read(ctx); websocket.CloseStatus(err) != websocket.StatusNormalClosure {
		t.Fatalf("after session.end: %v", err)
	}
	if got := a.Types(); !slices.Equal(got, []string{"session.start", "user.turn", "session.end"}) {
		t.Fatalf("recorded types %q", got)
	}
	if a.Connections() != 1 {
		t.Fatalf("Connections() = %d", a.Connections())
	}
}

func TestSilentRecordsAndNeverAnswers(t *testing.T) {
	t.Parallel()
	a, srv := serve(t, Silent)
	c := dialRaw(t, srv)
	c.start()
	c.text(`{"type":"user.turn","turn":1,"text":"anyone?"}`)
	c.nc.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if f, err := readFrame(c.br); err == nil {
		t.Fatalf("silent agent sent op %#x %q", f.op, f.payload)
	}
	// Types are matched exactly: a case-variant "TYPE" is not a type.
	c.nc.SetReadDeadline(time.Time{})
	c.text(`{"TYPE":"session.end"}`)
	c.send(opClose, string(closeFrame(1000, "bye")))
	if code := c.expectEnd(5 * time.Second); code != 1000 {
		t.Fatalf("close answered with %d", code)
	}
	if got := a.Types(); !slices.Equal(got, []string{"session.start", "user.turn", ""}) {
		t.Fatalf("recorded types %q", got)
	}
	if m := a.Messages(); len(m) != 3 || string(m[1]) != `{"type":"user.turn","turn":1,"text":"anyone?"}` {
		t.Fatalf("recorded messages %q", m)
	}
	if c := waitConns(t, a, 1); c[0].CloseCode != 1000 {
		t.Fatalf("recorded close code %d", c[0].CloseCode)
	}
}

func TestDropClosesAfterEstablished(t *testing.T) {
	t.Parallel()
	_, srv := serve(t, Drop)
	c := dialRaw(t, srv)
	c.start()
	if code := c.expectEnd(5 * time.Second); code != 1000 {
		t.Fatalf("close status %d", code)
	}
}

// Flood never completes and ignores response.cancel: deltas keep coming.
func TestFloodIgnoresCancel(t *testing.T) {
	t.Parallel()
	a, c := turn(t, Flood)
	if ev := c.event(2); ev["type"] != "run.started" {
		t.Fatalf("got %v", ev)
	}
	seq := int64(3)
	deltas := func(n int) {
		for range n {
			ev := c.event(seq)
			seq++
			if ev["type"] != "text.delta" || len(ev["text"].(string)) != 100 {
				t.Fatalf("event %d: %v", seq, ev)
			}
		}
	}
	deltas(2000)
	c.text(`{"type":"response.cancel"}`)
	deltas(2000)
	c.text(`{"type":"session.end"}`)
	deltas(100)
	// A close frame, then drain until the agent ends the connection:
	// closing with deltas unread would reset it, and the agent could lose
	// session.end before reading it.
	c.send(opClose, string(closeFrame(1000, "")))
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c.br)
	conns := waitConns(t, a, 1)
	if got := a.Types(); !slices.Equal(got, []string{"session.start", "user.turn", "response.cancel", "session.end"}) {
		t.Fatalf("recorded types %q", got)
	}
	if conns[0].Deltas < 4100 || conns[0].CloseCode != 1000 {
		t.Fatalf("recorded %+v", conns[0])
	}
}

// CaseKeys frames are valid JSON within 128 KiB whose exact keys are benign
// and whose case-variant keys, decoded the way encoding/json does, carry the
// hidden payloads.
func TestCaseKeysHideBehindCaseVariants(t *testing.T) {
	t.Parallel()
	_, c := turn(t, CaseKeys)
	type folded struct {
		Type, Text, Prompt, SpokenPrompt, Code string
	}
	var exact []map[string]any
	var loose []folded
	for i := range 6 {
		f := c.frame()
		if len(f.payload) > protocol.MaxFrameBytes {
			t.Fatalf("frame %d is %d bytes", i, len(f.payload))
		}
		var env struct {
			Event map[string]any `json:"event"`
		}
		var fenv struct{ Event folded }
		if json.Unmarshal(f.payload, &env) != nil || json.Unmarshal(f.payload, &fenv) != nil {
			t.Fatalf("frame %d is not JSON", i)
		}
		exact, loose = append(exact, env.Event), append(loose, fenv.Event)
	}
	if exact[1]["type"] != "text.delta" || exact[1]["text"] != VisibleText ||
		loose[1].Text != fill(HiddenTextCanary, hiddenTextLen) {
		t.Errorf("text.delta: exact %.80v, folded text %d chars", exact[1], len(loose[1].Text))
	}
	if exact[2]["type"] != "x.d" || loose[2].Type != "text.delta" || len(loose[2].Text) != hiddenTextLen {
		t.Errorf("hidden text.delta: exact type %v, folded %q with %d chars", exact[2]["type"], loose[2].Type, len(loose[2].Text))
	}
	if exact[3]["type"] != "x.d" || loose[3].Type != "interaction.requested" ||
		len(loose[3].Prompt) != hiddenPromptLen || len(loose[3].SpokenPrompt) != hiddenSpokenLen ||
		!strings.HasPrefix(loose[3].Prompt, HiddenPromptCanary) {
		t.Errorf("hidden interaction: exact type %v, folded %q prompt %d spoken %d", exact[3]["type"], loose[3].Type, len(loose[3].Prompt), len(loose[3].SpokenPrompt))
	}
	if exact[4]["code"] != "agent.busy" || loose[4].Code != HiddenCode {
		t.Errorf("failure: exact code %v, folded %q", exact[4]["code"], loose[4].Code)
	}
	if exact[5]["type"] != "run.completed" {
		t.Errorf("last event %v", exact[5])
	}
}

// Controls puts ESC, bare CR, C1 and the forged line in every shown or
// spoken string, and the events stay schema-valid.
func TestControlsCarryTerminalControls(t *testing.T) {
	t.Parallel()
	_, c := turn(t, Controls)
	fields := map[string]int{}
	for i := range 5 {
		f := c.frame()
		env, err := protocol.ParseEnvelope(f.payload)
		if err != nil {
			t.Fatalf("frame %d refused by the schema: %v", i, err)
		}
		ev := env.Event
		for name, s := range map[string]string{"text": ev.Text, "prompt": ev.Prompt, "spokenPrompt": ev.SpokenPrompt, "message": ev.Message} {
			if s == ControlText {
				fields[ev.Type+"."+name]++
			}
		}
	}
	want := []string{"failure.message", "interaction.requested.prompt", "interaction.requested.spokenPrompt", "speech.segment.text", "text.delta.text"}
	var got []string
	for k := range fields {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("control text in %q, want %q", got, want)
	}
	for _, sub := range []string{"\x1b[2J", "\r[connected", "\n" + ForgedLine, "\u009b", "\u0085"} {
		if !strings.Contains(ControlText, sub) {
			t.Errorf("ControlText lacks %q", sub)
		}
	}
}

// HugeFrame declares 1 GiB and trickles; the agent measures how long the
// client held on after the header.
func TestHugeFrameDeclaresOneGiB(t *testing.T) {
	t.Parallel()
	// The agent's clock runs ahead on demand: how long the client held
	// the frame open is the scenario, not a wait.
	var ahead atomic.Int64
	a := New(&Options{Mode: HugeFrame, Now: func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }})
	srv := httptest.NewServer(a)
	t.Cleanup(func() { a.Close(); srv.Close() })
	c := dialRaw(t, srv)
	c.start()
	var h [10]byte
	if _, err := io.ReadFull(c.br, h[:]); err != nil {
		t.Fatal(err)
	}
	if h[0] != 0x81 || h[1] != 127 || binary.BigEndian.Uint64(h[2:]) != 1<<30 {
		t.Fatalf("header % x", h)
	}
	body := make([]byte, 16<<10)
	if _, err := io.ReadFull(c.br, body); err != nil {
		t.Fatal(err)
	}
	if strings.Trim(string(body), "a") != "" {
		t.Fatal("the body is not the trickle")
	}
	ahead.Add(int64(200 * time.Millisecond)) // the client holds the huge frame open
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Wait(ctx, func() bool { live := a.Live(); return len(live) == 1 && live[0].Trickled >= 16<<10 }); err != nil {
		t.Fatalf("live connections %+v", a.Live())
	}
	if live := a.Live(); len(live) != 1 || live[0].HugeToEnd < 200*time.Millisecond || live[0].Trickled < 16<<10 {
		t.Fatalf("live connections %+v", live)
	}
	c.nc.Close()
	conns := waitConns(t, a, 1)
	if conns[0].Trickled < 16<<10 || conns[0].HugeToEnd < 200*time.Millisecond || conns[0].HugeToEnd > 4*time.Second {
		t.Fatalf("recorded %+v", conns[0])
	}
}

func TestPingFloodPings(t *testing.T) {
	t.Parallel()
	a, srv := serve(t, PingFlood)
	c := dialRaw(t, srv)
	c.start()
	for i := range 5000 {
		f := c.frame()
		if f.op != opPing {
			t.Fatalf("frame %d: op %#x", i, f.op)
		}
		if i < 10 {
			c.send(opPong, string(f.payload))
		}
	}
	c.send(opClose, string(closeFrame(1008, "enough")))
	// Drain until the agent ends the connection: closing with pings unread
	// would reset it and could drop the close frame before the agent read it.
	c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	io.Copy(io.Discard, c.br)
	conns := waitConns(t, a, 1)
	if conns[0].PingsSent < 5000 || conns[0].PongsReceived != 10 || conns[0].CloseCode != 1008 {
		t.Fatalf("recorded %+v", conns[0])
	}
}

// CloseAtOnce ends each connection with a clean end of stream, not a reset,
// even with the client's session.start unread, so a client always sees
// the same thing.
func TestCloseAtOnce(t *testing.T) {
	t.Parallel()
	a, srv := serve(t, CloseAtOnce)
	for range 3 {
		c := dialRaw(t, srv)
		c.text(`{"type":"session.start","sessionId":"s","clientCapabilities":{}}`)
		// The agent holds it unread; a reset it caused must arrive before the
		// read, and nothing on the client's side marks that (without the pause
		// a reset goes unseen 8 times in 10).
		time.Sleep(50 * time.Millisecond)
		c.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		if f, err := readFrame(c.br); err != io.EOF {
			t.Fatalf("read %+v, %v; want a bare end of stream", f, err)
		}
		c.nc.Close()
	}
	waitConns(t, a, 3)
	if a.Connections() != 3 {
		t.Fatalf("Connections() = %d", a.Connections())
	}
}

// Close ends live connections, waits for them, and refuses new upgrades.
func TestCloseEndsConnections(t *testing.T) {
	t.Parallel()
	a := New(&Options{Mode: Silent})
	srv := httptestServer(t, a)
	c := dialRaw(t, srv)
	c.start()
	done := make(chan struct{})
	go func() { a.Close(); close(done) }()
	c.expectEnd(5 * time.Second)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not return")
	}
	resp, err := http.Get(srv.URL + AGUIPath)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %s", resp.Status)
	}
}

func TestUnknownModePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("New accepted an unknown mode")
		}
	}()
	New(&Options{Mode: "flod"})
}
