package client_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
)

// TestTurnsCarryContext: Options.Context is asked at each send, its entries
// ride on user.turn (as they are then), at most MaxContextEntries, and
// not on session.start.
func TestTurnsCarryContext(t *testing.T) {
	got := make(chan *protocol.ClientMessage, 4)
	a := clienttest.NewServer(t, func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
		if m := clienttest.ReadClient(ctx, t, c); m == nil || len(m.Context) != 0 {
			t.Errorf("session.start with context: %+v", m)
		}
		clienttest.WriteEnv(ctx, c, 1, protocol.Event{Type: protocol.EventSessionEstablished})
		seq := int64(2)
		for {
			m := clienttest.ReadClient(ctx, t, c)
			if m == nil {
				return
			}
			got <- m
			for _, ev := range []protocol.Event{{Type: protocol.EventRunStarted}, {Type: protocol.EventRunCompleted}} {
				clienttest.WriteEnv(ctx, c, seq, ev)
				seq++
			}
		}
	})
	ctx := context.Background()
	ag, err := client.Discover(ctx, a.Base(), "", a.Policy())
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n := 1
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{Context: func() []protocol.ContextEntry {
		var c []protocol.ContextEntry
		for i := range n {
			c = append(c, protocol.ContextEntry{Description: protocol.ContextLanguage, Value: fmt.Sprint("x-", i)})
		}
		return c
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	read := func() *protocol.ClientMessage {
		t.Helper()
		select {
		case m := <-got:
			return m
		case <-time.After(5 * time.Second):
			t.Fatal("the agent got nothing")
		}
		return nil
	}
	if _, err := s.Say(ctx, "hello"); err != nil {
		t.Fatal(err)
	}
	if m := read(); len(m.Context) != 1 || m.Context[0].Value != "x-0" {
		t.Errorf("first turn's context: %+v", m.Context)
	}
	for s.Busy() { // the run's completion arrives on the read loop
		nextEvent(t, s)
	}
	n = 20
	if _, err := s.Say(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	if m := read(); len(m.Context) != protocol.MaxContextEntries {
		t.Errorf("second turn carried %d context entries, want %d", len(m.Context), protocol.MaxContextEntries)
	}
}
