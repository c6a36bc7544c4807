package wsframe

import (
	"context"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/agentcall/acbridge/internal/ratelimit"
	"github.com/agentcall/acbridge/protocol"
)

// Defaults of GuardOptions.
const (
	DefaultPingBurst = 16
	DefaultPingRate  = 2.0 // per second
	DefaultCloseWait = time.Second
)

// refusedLinger is how long a close for a refused frame or a ping flood
// keeps the socket open, without reading, after writing the close frame.
// Closing a socket with unread data makes the kernel send a reset, and a
// reset that reaches the peer before it has read our close frame discards
// the frame, so the peer would never learn why.
const refusedLinger = 100 * time.Millisecond

// PingFloodReason is the close reason sent to a peer that pinged past the
// budget.
const PingFloodReason = "ping.flood"

// ErrPingFlood is returned by Guard.Read once the peer has pinged past the
// budget; the connection is then being cut.
var ErrPingFlood = errors.New("wsframe: the peer sent WebSocket pings faster than the budget allows (ping flood); the connection was closed")

// GuardOptions bounds what a peer can make one connection cost. Zero
// values mean the defaults.
type GuardOptions struct {
	// PingBurst pings are answered at once (default 16); after that the
	// budget refills at PingRate per second (default 2). A ping that finds
	// the budget empty closes the connection with PingFloodReason: no
	// keep-alive needs more, and every pong answered costs a write.
	PingBurst int
	PingRate  float64
	// CloseWait is how long a normal close waits for the peer's close
	// frame (default 1 s). A close for a frame rule or a ping flood reads
	// nothing more: the peer is still sending what it was refused for and
	// will not answer.
	CloseWait time.Duration
	// Now is the clock of the ping budget (default time.Now).
	Now func() time.Time
}

// Guard holds, for one connection, what the library does not: the raw
// network connection, so that a close stops reading at once instead of
// discarding the peer's data for up to five seconds (the library's close
// handshake), and the ping budget. Wire it in with Dialer (client side),
// OnPing and Prepare, then use its Read and Close.
type Guard struct {
	closeWait time.Duration
	now       func() time.Time

	mu     sync.Mutex
	raw    net.Conn
	ws     *websocket.Conn
	pings  ratelimit.Bucket
	flood  bool
	linger time.Duration // set by a refusing Close, for lingerConn
}

// NewGuard returns a Guard for one connection; o may be nil.
func NewGuard(o *GuardOptions) *Guard {
	if o == nil {
		o = &GuardOptions{}
	}
	burst, rate := float64(o.PingBurst), o.PingRate
	if burst <= 0 {
		burst = DefaultPingBurst
	}
	if rate <= 0 {
		rate = DefaultPingRate
	}
	g := &Guard{closeWait: o.CloseWait, now: o.Now, pings: ratelimit.New(burst, rate)}
	if g.closeWait <= 0 {
		g.closeWait = DefaultCloseWait
	}
	if g.now == nil {
		g.now = time.Now
	}
	return g
}

// Dialer wraps an http.Transport's DialContext so the Guard holds the
// connection the WebSocket runs on.
func (g *Guard) Dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		lc := &lingerConn{Conn: c, g: g}
		g.mu.Lock()
		g.raw = lc
		g.mu.Unlock()
		return lc, nil
	}
}

// Prepare applies Prepare to c and remembers it.
func (g *Guard) Prepare(c *websocket.Conn) {
	Prepare(c)
	g.mu.Lock()
	g.ws = c
	g.mu.Unlock()
}

// OnPing is the connection's OnPingReceived: it answers pings within the
// budget and, past it, stops the connection's reading so that Read returns
// ErrPingFlood.
func (g *Guard) OnPing(context.Context, []byte) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.flood {
		return false
	}
	if g.pings.Take(g.now()) {
		return true
	}
	g.flood = true
	g.stopReadingLocked()
	return false
}

// stopReadingLocked makes every pending and future read of the connection
// fail now. Without the raw connection the only way is to drop it.
func (g *Guard) stopReadingLocked() {
	switch {
	case g.raw != nil:
		g.raw.SetReadDeadline(time.Unix(1, 0))
	case g.ws != nil:
		go g.ws.CloseNow() // not inline: we may be inside the library's reader
	}
}

// Flooded reports whether the peer pinged past the budget.
func (g *Guard) Flooded() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.flood
}

// Read is Read, with a ping flood reported as ErrPingFlood.
func (g *Guard) Read(ctx context.Context, c *websocket.Conn) ([]byte, error) {
	b, err := Read(ctx, c)
	if err != nil && g.Flooded() {
		return nil, ErrPingFlood
	}
	return b, err
}

// Close closes c with the status and reason for cause (nil: a normal
// closure; ErrPingFlood: 1008 ping.flood). It waits for the peer's close
// frame at most CloseWait, and not at all when cause is a frame rule
// violation or a ping flood, so a peer still sending a huge frame or pings
// costs nothing more once refused.
func (g *Guard) Close(c *websocket.Conn, cause error) error {
	wait := g.closeWait
	status, reason := websocket.StatusNormalClosure, ""
	switch {
	case errors.Is(cause, ErrPingFlood) || (cause == nil && g.Flooded()):
		status, reason, wait = websocket.StatusPolicyViolation, PingFloodReason, 0
	case cause != nil:
		status, reason = CloseStatus(cause), closeReason(cause)
		if frameRule(cause) {
			wait = 0
		}
	}
	g.mu.Lock()
	if g.raw != nil {
		if wait == 0 {
			// The library's close handshake then fails its first read and
			// closes the socket, which lingers (lingerConn.Close).
			g.raw.SetReadDeadline(time.Unix(1, 0))
			g.linger = refusedLinger
		} else {
			g.raw.SetReadDeadline(time.Now().Add(wait))
		}
	}
	g.mu.Unlock()
	return c.Close(status, reason)
}

// lingerConn is the connection a Guard's Dialer returns: its Close waits
// the Guard's linger first (see refusedLinger).
type lingerConn struct {
	net.Conn
	g *Guard
}

func (c *lingerConn) Close() error {
	c.g.mu.Lock()
	d := c.g.linger
	c.g.mu.Unlock()
	if d > 0 {
		time.Sleep(d)
	}
	return c.Conn.Close()
}

// frameRule reports whether err breaks a frame rule: the peer may still be
// sending the refused frame.
func frameRule(err error) bool {
	for _, code := range protocol.Codes(err) {
		switch code {
		case protocol.CodeFrameSize, protocol.CodeFrameBinary, protocol.CodeFrameUTF8:
			return true
		}
	}
	return false
}
