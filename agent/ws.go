package agent

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// serveAGUI is the WebSocket adapter: it authenticates the upgrade, then
// moves frames between the socket and a conversation. It holds no protocol
// logic of its own: the WebRTC data channel (webrtc_session.go) drives the
// same conversation, and both send through deliver.
func (a *Agent) serveAGUI(w http.ResponseWriter, r *http.Request) {
	if !a.admit(w, r) {
		return
	}
	if err := a.acquire(); err != nil {
		http.Error(w, "the agent is not accepting sessions now; retry later", http.StatusServiceUnavailable)
		return
	}
	defer a.release()
	// Origin: the library accepts a request without Origin (a kiosk client
	// sends none) or whose Origin host equals Host (a same-origin page) and
	// answers 403 to any other browser page, so no foreign site can drive
	// a session with a user's ambient credentials.
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols:    []string{protocol.WSBinding},
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		a.log.Info("agent: WebSocket upgrade refused", "remote", r.RemoteAddr, "err", err)
		return
	}
	wsframe.Prepare(conn)
	a.serveConn(conn, r.RemoteAddr)
}

// serveConn runs one session to its end on the caller's goroutine. Two
// things may end it from outside: Agent.Close (status 1001) and the idle
// timer (status 1008 "idle"). Both cancel ctx; the close handshake then runs
// in a context.AfterFunc that serveConn waits for, so no goroutine outlives
// it. Reads use no deadline of their own: that close is what unblocks them.
func (a *Agent) serveConn(conn *websocket.Conn, remote string) {
	start := a.now()
	log := a.log.With("remote", remote)
	ctx, cancel := context.WithCancelCause(a.ctx)
	closed := make(chan struct{})
	stopCloser := context.AfterFunc(ctx, func() {
		defer close(closed)
		status, reason := websocket.StatusGoingAway, "agent shutting down"
		if errors.Is(context.Cause(ctx), errIdle) {
			status, reason = websocket.StatusPolicyViolation, "idle"
		}
		_ = conn.Close(status, reason)
	})
	conv := newConversation(a.cfg, log)
	frames := 0
	defer func() {
		if !stopCloser() {
			<-closed
		}
		cancel(nil)
		_ = conn.CloseNow()
		conv.close()
		log.Info("agent: connection closed", "frames", frames, "duration", a.now().Sub(start).Round(time.Millisecond))
	}()
	frames = a.converse(log, wsConn{conn: conn, a: a, close: cancel}, conv, conv.receive)
}
