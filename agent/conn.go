package agent

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// sessionConn is the agent's side of one session's transport, as
// client.Transport is the client's: the WebSocket (wsConn) or the WebRTC
// data channel (rtcSession). A conversation's replies reach either through
// deliver, so what is sent and when a session closes is decided once.
type sessionConn interface {
	// recv blocks for the client's next frame; a *protocol.Error says
	// which frame rule it broke, any other error that the session is over.
	recv() ([]byte, error)
	// idleOut ends the session because the client stayed silent for the
	// agent's idle time; it is called from a timer and must not block.
	idleOut()
	// send writes one frame within the agent's write bound.
	send(frame []byte) error
	// closeAfter ends the connection once the last reply is out: a send
	// failed (err), a rule was broken (err is the *protocol.Error), or the
	// session ended (err nil).
	closeAfter(why closeReason, err error)
}

// closeReason is why deliver ends a session.
type closeReason int

const (
	closeSendFailed closeReason = iota
	closeViolation
	closeSessionEnded
)

// errIdle is why a session whose client stayed silent too long ends: on
// its own terms, as far as closing goes.
var errIdle = fmt.Errorf("%w: client idle", errSessionOver)

// converse runs conv over c until the session ends: each client frame
// restarts the idle timer and its reply goes out through deliver. receive
// is conv.receive plus what the transport adds. It returns the number of
// frames received.
func (a *Agent) converse(log *slog.Logger, c sessionConn, conv *conversation, receive func([]byte) reply) int {
	idle := time.AfterFunc(a.idle, c.idleOut)
	defer idle.Stop()
	frames := 0
	for {
		frame, err := c.recv()
		if err != nil {
			if isProtocolError(err) {
				deliver(log, c, conv.reject(err))
			}
			return frames
		}
		frames++
		idle.Reset(a.idle)
		if !deliver(log, c, receive(frame)) {
			return frames
		}
	}
}

// deliver sends r's envelopes on c and reports whether the session goes
// on; when it does not, c has been told why.
func deliver(log *slog.Logger, c sessionConn, r reply) bool {
	for i := range r.envelopes {
		frame, err := protocol.MarshalEnvelope(&r.envelopes[i])
		if err == nil {
			err = c.send(frame)
		}
		if err != nil {
			log.Info("agent: send failed; closing", "err", err)
			c.closeAfter(closeSendFailed, err)
			return false
		}
	}
	switch {
	case r.closeErr != nil:
		if codes := protocol.Codes(r.closeErr); len(codes) > 0 {
			log.Info("agent: closing after a rule violation", "code", codes[0])
		}
		c.closeAfter(closeViolation, r.closeErr)
		return false
	case r.ended:
		c.closeAfter(closeSessionEnded, nil)
		return false
	}
	return true
}

// wsConn is a session's WebSocket: the close status says why it ended,
// since a WebSocket has one.
type wsConn struct {
	conn  *websocket.Conn
	a     *Agent
	close context.CancelCauseFunc // cancels the connection's context, which closes the socket
}

// recv reads with no deadline of its own: closing the socket (Agent.Close,
// idle) is what unblocks it.
func (w wsConn) recv() ([]byte, error) { return wsframe.Read(context.Background(), w.conn) }

func (w wsConn) idleOut() { w.close(errIdle) }

func (w wsConn) send(frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), w.a.write)
	defer cancel()
	return wsframe.Write(ctx, w.conn, frame)
}

func (w wsConn) closeAfter(why closeReason, err error) {
	switch why {
	case closeSendFailed:
		_ = w.conn.Close(websocket.StatusInternalError, "send failed")
	case closeViolation:
		_ = wsframe.Close(w.conn, err)
	default:
		_ = w.conn.Close(websocket.StatusNormalClosure, "session ended")
	}
}

// closeAfter leaves the close to teardown, which delivers what was sent
// first: a data channel has no close status, so the failure envelope is
// the client's only explanation.
func (s *rtcSession) closeAfter(closeReason, error) {}

func (s *rtcSession) send(frame []byte) error { return s.write(frame) }
