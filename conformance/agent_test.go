package conformance_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/conformance"
)

// The public walkthrough replays clean, texts included, against the
// reference agent over a real WebSocket on loopback.
func TestReplayAgainstReferenceAgent(t *testing.T) {
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()
	ctx := context.Background()
	ag, err := client.Discover(ctx, srv.URL, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	r := conformance.Replay(ctx, tr, ag.Card, conformance.ReferenceWalkthrough(), &conformance.ReplayOptions{StrictText: true})
	if !r.Passed {
		t.Fatalf("diverged: %v", r.Divergence)
	}
}

// V8: rollback restores the legacy producer card without changing
// observation bytes: the same walkthrough, byte for byte, replays against
// a reference agent that declares the legacy identifier.
func TestReplayAgainstLegacyReferenceAgent(t *testing.T) {
	a, err := agent.New(&agent.Options{Physical: true, LegacyURI: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()
	ctx := context.Background()
	ag, err := client.Discover(ctx, srv.URL, "", &client.Policy{AllowInsecureLocal: true})
	if err != nil {
		t.Fatal(err)
	}
	if !ag.Card.Legacy {
		t.Fatalf("card declares %s", ag.Card.URI)
	}
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if r := conformance.Replay(ctx, tr, ag.Card, conformance.ReferenceWalkthrough(), &conformance.ReplayOptions{StrictText: true}); !r.Passed {
		t.Fatalf("diverged: %v", r.Divergence)
	}
}
