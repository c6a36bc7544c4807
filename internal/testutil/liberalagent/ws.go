package liberalagent

import (
	"context"
	"net/http"

	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

type wsConn struct {
	ctx context.Context
	c   *websocket.Conn
}

func (w wsConn) read() ([]byte, error) {
	_, b, err := w.c.Read(w.ctx)
	return b, err
}

func (w wsConn) write(f []byte) error { return w.c.Write(w.ctx, websocket.MessageText, f) }

func (a *Agent) serveWS(w http.ResponseWriter, r *http.Request) {
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{protocol.WSBinding}})
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(protocol.MaxFrameBytes)
	a.serve(wsConn{ctx: r.Context(), c: c})
	c.Close(websocket.StatusNormalClosure, "")
}
