package hostileagent

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/agentcall/acbridge/internal/changed"
	"github.com/agentcall/acbridge/protocol"
)

// Mode is the one way an agent misbehaves.
type Mode string

// Modes. Every mode serves a valid card and answers session.start with
// session.established before it misbehaves, except CloseAtOnce.
const (
	Normal      Mode = "normal"      // session.established; answers each user.turn/user.observation with run.started, one text.delta, run.completed
	Silent      Mode = "silent"      // session.established, then reads and records everything and never answers again
	Drop        Mode = "drop"        // closes each connection right after session.established
	Flood       Mode = "flood"       // on the first user turn/observation: run.started then text.delta as fast as it can, never completing
	CaseKeys    Mode = "casekeys"    // envelopes with differently cased duplicate keys ("TEXT", "TYPE", "CODE", "PROMPT" ...)
	Controls    Mode = "controls"    // text/prompts/failure messages containing ESC, CR, C1 controls, a forged "[connected to https://bank.example]" line
	HugeFrame   Mode = "hugeframe"   // a frame header declaring 1 GiB, then trickles bytes
	PingFlood   Mode = "pingflood"   // WebSocket pings as fast as it can
	CloseAtOnce Mode = "closeatonce" // accepts the upgrade and closes at once
	// Unsolicited: right after session.established, runs nobody asked for
	// as fast as it can, each run.started, one text.delta of
	// UnsolicitedDelta characters and run.completed, without waiting for a
	// turn.
	Unsolicited Mode = "unsolicited"
)

// Paths the agent serves.
const (
	CardPath = "/.well-known/agent-card.json"
	AGUIPath = "/agui"
)

// Options configures an Agent; the zero value is a Normal agent accepting
// and requesting nfc and photo, logging nowhere.
type Options struct {
	Mode     Mode
	Accepted []protocol.Modality // physicalObservations.accepted/agentRequests (default nfc, photo)
	Logger   *slog.Logger

	// FloodDelta is the text length of each Flood text.delta (default 4096
	// characters, a quarter of the 16,384 bound, so every event is valid
	// on its own and only their number is hostile).
	FloodDelta int
	// Now is the clock for the connection timings in Conns (default time.Now).
	Now func() time.Time
}

// Conn is what the agent saw of one WebSocket connection (Conns: finished
// ones; Live: open ones, so far).
type Conn struct {
	// CloseCode is the status of the client's close frame: 1005 when the
	// frame carried none, 0 when the client sent no close frame at all.
	CloseCode int
	// Lasted runs from the upgrade to the end of the TCP connection (to now
	// in Live).
	Lasted time.Duration
	// HugeToEnd (HugeFrame) runs from sending the 1 GiB header to the end of
	// the TCP connection: how long the client kept reading the frame.
	HugeToEnd time.Duration
	// Trickled (HugeFrame) counts body bytes the agent wrote after the header.
	Trickled int64
	// PingsSent and PongsReceived count control frames (PingFlood).
	PingsSent, PongsReceived int64
	// Deltas counts text.delta events written (Flood, Unsolicited).
	Deltas int64
	// Runs counts runs started (Unsolicited).
	Runs int64
}

// Agent is a hostile AgentCall agent; it is an http.Handler serving the card
// and the AG-UI WebSocket endpoint.
type Agent struct {
	mode     Mode
	accepted []protocol.Modality
	log      *slog.Logger
	delta    int
	now      func() time.Time

	wg     sync.WaitGroup
	mu     sync.Mutex
	closed bool
	live   map[net.Conn]*connState
	conns  int
	msgs   [][]byte
	done   []Conn
	sig    changed.Signal // at each upgrade, message, trickled chunk and connection end
}

// New returns an agent; o may be nil. An unknown Mode panics: a typo must
// not quietly test a well-behaved agent.
func New(o *Options) *Agent {
	if o == nil {
		o = &Options{}
	}
	a := &Agent{
		mode:     o.Mode,
		accepted: o.Accepted,
		log:      o.Logger,
		delta:    o.FloodDelta,
		now:      o.Now,
		live:     map[net.Conn]*connState{},
	}
	switch a.mode {
	case "":
		a.mode = Normal
	case Normal, Silent, Drop, Flood, CaseKeys, Controls, HugeFrame, PingFlood, CloseAtOnce, Unsolicited:
	default:
		panic("hostileagent: unknown mode " + string(a.mode))
	}
	if a.accepted == nil {
		a.accepted = []protocol.Modality{protocol.NFC, protocol.Photo}
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.delta <= 0 {
		a.delta = 4096
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a
}

// ServeHTTP serves the card and the AG-UI endpoint; a WebSocket connection
// is served to its end on the caller's goroutine.
func (a *Agent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == CardPath && r.Method == http.MethodGet:
		a.serveCard(w, r)
	case r.URL.Path == AGUIPath:
		a.serveAGUI(w, r)
	default:
		http.NotFound(w, r)
	}
}

// card is a valid A2A card with the AgentCall extension: the hostility is on
// the AG-UI connection only, so discovery always succeeds.
func (a *Agent) serveCard(w http.ResponseWriter, r *http.Request) {
	card := map[string]any{
		"name":                "hostileagent (" + string(a.mode) + ")",
		"description":         "A misbehaving AgentCall agent for tests.",
		"version":             "0.1.0",
		"supportedInterfaces": []any{},
		"capabilities": map[string]any{"extensions": []any{map[string]any{
			"uri":      protocol.ExtensionURI,
			"required": false,
			"params": map[string]any{
				"schemaVersion": "0.1",
				"agui": map[string]any{
					"url":       "http://" + r.Host + AGUIPath,
					"transport": protocol.TransportWebSocket,
					"session":   map[string]bool{"resume": false, "replay": false},
				},
				"voice": map[string]string{"owner": "client"},
				"physicalObservations": map[string]any{
					"accepted":      a.accepted,
					"agentRequests": a.accepted,
				},
			},
		}}},
		"defaultInputModes":  []string{"text/plain"},
		"defaultOutputModes": []string{"text/plain"},
		"skills":             []any{},
	}
	b, _ := json.Marshal(card)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (a *Agent) serveAGUI(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		http.Error(w, "hostileagent: closed", http.StatusServiceUnavailable)
		return
	}
	a.wg.Add(1)
	a.mu.Unlock()
	defer a.wg.Done()
	nc, br, err := upgrade(w, r)
	if err != nil {
		a.log.Info("hostileagent: upgrade refused", "err", err)
		return
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		nc.Close()
		return
	}
	a.conns++
	st := &connState{start: a.now()}
	a.live[nc] = st
	a.sig.Notify()
	a.mu.Unlock()
	a.serve(&wsConn{nc: nc, br: br}, st)
	rec := st.snapshot(a.now())
	a.log.Info("hostileagent: connection ended", "mode", a.mode, "lasted", rec.Lasted, "closeCode", rec.CloseCode)
	a.mu.Lock()
	delete(a.live, nc)
	a.done = append(a.done, rec)
	a.sig.Notify()
	a.mu.Unlock()
}

// connState is one connection's record; Live reads it while the
// connection runs.
type connState struct {
	mu     sync.Mutex
	c      Conn
	start  time.Time
	hugeAt time.Time // HugeFrame: when the 1 GiB header went out
	end    time.Time // when the client's side of the TCP connection ended
}

func (st *connState) update(f func(c *Conn)) {
	st.mu.Lock()
	f(&st.c)
	st.mu.Unlock()
}

func (st *connState) mark(t *time.Time, now time.Time) {
	st.mu.Lock()
	*t = now
	st.mu.Unlock()
}

// snapshot is the record as of now, or as of the end if there was one.
func (st *connState) snapshot(now time.Time) Conn {
	st.mu.Lock()
	defer st.mu.Unlock()
	c := st.c
	if !st.end.IsZero() {
		now = st.end
	}
	c.Lasted = now.Sub(st.start)
	if !st.hugeAt.IsZero() {
		c.HugeToEnd = now.Sub(st.hugeAt)
	}
	return c
}

// serve runs one connection: a reader goroutine records everything the
// client sends and hands data messages to the mode's script, which runs
// here. Both end when the TCP connection does.
func (a *Agent) serve(c *wsConn, st *connState) {
	ctx, cancel := context.WithCancel(context.Background())
	msgs := make(chan []byte, 64)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		defer cancel()
		defer func() { st.mark(&st.end, a.now()) }()
		for {
			m, err := c.readMessage(func() { st.update(func(c *Conn) { c.PongsReceived++ }) })
			if err != nil {
				return
			}
			if m.op == opClose {
				code := 1005
				if len(m.payload) >= 2 {
					code = int(binary.BigEndian.Uint16(m.payload))
				}
				st.update(func(c *Conn) { c.CloseCode = code })
				// Answer the close handshake, unless the stream is raw; a
				// raw stream keeps reading so that the timing measures when
				// the client drops TCP, not when it says goodbye.
				c.mu.Lock()
				raw := c.raw
				c.mu.Unlock()
				if !raw {
					_ = c.reply(opClose, m.payload[:min(2, len(m.payload))])
					c.nc.Close()
					return
				}
				continue
			}
			if m.op != opText {
				continue
			}
			a.mu.Lock()
			a.msgs = append(a.msgs, m.payload)
			a.sig.Notify()
			a.mu.Unlock()
			select {
			case msgs <- m.payload:
			default: // the script is busy flooding; the message is recorded anyway
			}
		}
	}()
	s := &script{a: a, c: c, ctx: ctx, msgs: msgs, st: st}
	s.run()
	c.nc.Close()
	<-readDone
}

// Wait blocks until cond reports true, asking again after each upgrade,
// client message and connection end, or until ctx is done. cond may call
// the Agent's methods.
func (a *Agent) Wait(ctx context.Context, cond func() bool) error {
	return a.sig.Wait(ctx, cond)
}

// Connections returns the number of WebSocket upgrades accepted so far.
func (a *Agent) Connections() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.conns
}

// Messages returns copies of every client text frame received, in order.
func (a *Agent) Messages() [][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([][]byte, len(a.msgs))
	for i, m := range a.msgs {
		out[i] = append([]byte(nil), m...)
	}
	return out
}

// Types returns the "type" of each client message received, in order ("" for
// a message without one). The key is matched exactly, as the spec's JSON is.
func (a *Agent) Types() []string {
	msgs := a.Messages()
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = messageType(m)
	}
	return out
}

// Conns returns what the agent saw of each finished connection, in the
// order they ended.
func (a *Agent) Conns() []Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Conn(nil), a.done...)
}

// Live returns what the agent has seen so far of each open connection, its
// durations counted up to now.
func (a *Agent) Live() []Conn {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	var out []Conn
	for _, st := range a.live {
		out = append(out, st.snapshot(now))
	}
	return out
}

// Close ends every connection and waits for their goroutines; later
// upgrades are refused with 503.
func (a *Agent) Close() {
	a.mu.Lock()
	a.closed = true
	for nc := range a.live {
		nc.Close()
	}
	a.mu.Unlock()
	a.wg.Wait()
}

func messageType(m []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(m, &fields) != nil {
		return ""
	}
	var t string
	if json.Unmarshal(fields["type"], &t) != nil {
		return ""
	}
	return t
}
