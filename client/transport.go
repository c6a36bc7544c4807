package client

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// Transport carries UTF-8 JSON frames between the client and the agent: a
// WebSocket, or the WebRTC data channel. Recv returns a *protocol.Error for a
// frame that breaks the 0.1 frame rules; the session then fails and closes.
type Transport interface {
	Send(ctx context.Context, frame []byte) error
	Recv(ctx context.Context) ([]byte, error)
	// Close ends the connection; a non-nil cause names the protocol error
	// in the close reason. Safe to call more than once.
	Close(cause error) error
}

// Dial opens the transport the card asks for, with defaults: a WebRTC
// transport dialed this way carries the data channel and a silent track.
func (a *Discovered) Dial(ctx context.Context) (Transport, error) {
	switch a.Card.Params.AGUI.Transport {
	case "websocket":
		return a.DialWebSocket(ctx)
	case "webrtc":
		// Without a microphone or sink: voice needs DialWebRTC's options.
		t, err := a.DialWebRTC(ctx, nil)
		if err != nil {
			return nil, err // not a typed nil inside the interface
		}
		return t, nil
	}
	return nil, &incompatibleError{fmt.Errorf("transport %q is not available in this build", a.Card.Params.AGUI.Transport)}
}

// DialWebSocket opens the AG-UI WebSocket under the agent's network policy:
// the host checked again, the connection pinned to the checked address, the
// bearer token in the upgrade's Authorization header (same origin only), no
// redirects.
func (a *Discovered) DialWebSocket(ctx context.Context) (_ Transport, err error) {
	defer func() { err = a.redact(err) }()
	p := a.policy
	t, err := p.resolve(ctx, a.WSURL)
	if err != nil {
		return nil, err
	}
	dctx, cancel := context.WithTimeout(ctx, p.TotalTimeout)
	defer cancel()
	g := wsframe.NewGuard(nil)
	hc := p.httpClient(t)
	if tr, ok := hc.Transport.(*http.Transport); ok {
		tr.DialContext = g.Dialer(tr.DialContext)
	}
	c, resp, err := websocket.Dial(dctx, a.WSURL.String(), &websocket.DialOptions{
		HTTPClient:     hc,
		HTTPHeader:     a.authHeader(a.WSURL),
		OnPingReceived: g.OnPing,
		// The binding's name, offered as the WebSocket subprotocol; an
		// agent that selects none is still accepted, as the spec names no
		// negotiation rule for it.
		Subprotocols: []string{protocol.WSBinding},
	})
	if err != nil {
		if resp != nil && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			return nil, refuse("the AG-UI WebSocket upgrade was redirected (HTTP %d); redirects are not followed", resp.StatusCode)
		}
		if resp != nil && resp.StatusCode == http.StatusUnauthorized {
			return nil, fmt.Errorf("client: the agent refused the bearer token (HTTP 401): check the token file")
		}
		return nil, fmt.Errorf("client: connecting to the AG-UI WebSocket at %s: %w", origin(a.WSURL), err)
	}
	g.Prepare(c)
	return &wsTransport{c: c, g: g}, nil
}

// wsTransport reads and closes through a wsframe.Guard: a refused frame or
// a ping flood ends the connection at once rather than after the library's
// five-second close handshake.
type wsTransport struct {
	c    *websocket.Conn
	g    *wsframe.Guard
	once sync.Once
}

func (w *wsTransport) Send(ctx context.Context, frame []byte) error {
	return wsframe.Write(ctx, w.c, frame)
}

func (w *wsTransport) Recv(ctx context.Context) ([]byte, error) {
	return w.g.Read(ctx, w.c)
}

func (w *wsTransport) Close(cause error) error {
	var err error
	w.once.Do(func() { err = w.g.Close(w.c, cause) })
	return err
}
