package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
	"github.com/agentcall/acbridge/protocol"
)

// Any client of the session engine gets the run budget: a text.delta flood
// is cancelled past the budget, and the session ends with run.budget when
// the agent goes on, after sending session.end.
func TestRunBudgetEndsAFlood(t *testing.T) {
	a := hostileagent.New(&hostileagent.Options{Mode: hostileagent.Flood})
	addr := hostileagent.Serve(t, a)
	ctx := context.Background()
	ag, err := client.Discover(ctx, "http://"+addr, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	const events = 200
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{RunBudget: &client.RunBudget{Events: events}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Say(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	got := 0
	timeout := time.After(20 * time.Second)
	for done := false; !done; {
		select {
		case _, ok := <-s.Events():
			if !ok {
				done = true
				break
			}
			got++
		case <-timeout:
			t.Fatalf("the flood was not cut off (%d events)", got)
		}
	}
	if !errors.Is(s.Err(), &protocol.Error{Code: client.CodeRunBudget}) {
		t.Errorf("session ended with %v, want %s", s.Err(), client.CodeRunBudget)
	}
	if got > 2*events {
		t.Errorf("%d events delivered, budget %d", got, events)
	}
	a.Close() // the connection's record is complete once it is closed
	types := a.Types()
	var cancels, ends int
	for _, ty := range types {
		switch ty {
		case "response.cancel":
			cancels++
		case "session.end":
			ends++
		}
	}
	if cancels != 1 || ends != 1 {
		t.Errorf("the agent received %d response.cancel and %d session.end, want 1 and 1: %v", cancels, ends, types)
	}
}
