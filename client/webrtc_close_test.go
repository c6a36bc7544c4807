package client_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/client"
)

// session.end, written last before the client closes, reaches the agent
// on every stop: Close waits until the agent's SCTP stack acknowledged it
// before the association is aborted (1 of 10 was not, before the fix).
func TestWebRTCSessionEndDelivered(t *testing.T) {
	const stops = 10
	var logs bridgetest.Transcript
	ra := startRTCAgent(t, &agent.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ag := discoverRTC(t, ra)
	ctx := context.Background()
	for i := 1; i <= stops; i++ {
		tr, err := ag.DialWebRTC(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		s, err := client.Start(ctx, tr, ag.Card, nil)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := s.End(ctx); err != nil {
			t.Fatalf("stop %d: %v", i, err)
		}
		// The bound is rtcpeer.CloseTimeout, with room for a busy machine.
		t.Logf("End %v", time.Since(start))
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("stop %d: End took %v", i, d)
		}
		waitLog(t, &logs, "agent: connection closed", i)
	}
	if got := strings.Count(logs.String(), "agent: session ended by client"); got != stops {
		t.Fatalf("the agent saw session.end in %d of %d stops\n%s", got, stops, logs.String())
	}
}

// waitLog waits until line appears n times in logs.
func waitLog(t *testing.T, logs *bridgetest.Transcript, line string, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := logs.Wait(ctx, line, n); err != nil {
		t.Fatalf("waited for %d× %q\n%s", n, line, logs.String())
	}
}
