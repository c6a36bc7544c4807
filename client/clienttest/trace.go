package clienttest

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// Step is one message of a trace, as in a fixture file's walkthrough.
type Step struct {
	Direction string          `json:"direction"`
	Message   json.RawMessage `json:"message"`
}

// PlayServerSide returns a script that plays the server side of a trace:
// after each client message, which must match the trace's type, turn and
// interactionId, it sends the server steps that follow, verbatim.
func PlayServerSide(t testing.TB, steps []Step) func(context.Context, *websocket.Conn, *http.Request) {
	return func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
		for i := 0; i < len(steps); i++ {
			if steps[i].Direction == "client" {
				m := ReadClient(ctx, t, c)
				if m == nil {
					return
				}
				var want protocol.ClientMessage
				json.Unmarshal(steps[i].Message, &want)
				if m.Type != want.Type || m.Turn != want.Turn || m.InteractionID != want.InteractionID {
					t.Errorf("step %d: client sent %s turn %d %q, trace has %s turn %d %q", i+1, m.Type, m.Turn, m.InteractionID, want.Type, want.Turn, want.InteractionID)
				}
				continue
			}
			if err := wsframe.Write(ctx, c, steps[i].Message); err != nil {
				return
			}
		}
		for {
			if _, _, err := c.Read(ctx); err != nil {
				return
			}
		}
	}
}
