package conformance_test

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/protocol"
)

// replayReference serves a reference agent with opts over a real WebSocket
// on loopback and replays the walkthrough, texts included, against it, in
// lockstep when strict.
func replayReference(t *testing.T, opts agent.Options, strict bool) (*protocol.Card, *conformance.ReplayReport) {
	t.Helper()
	opts.Physical = true
	a, err := agent.New(&opts)
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
	return ag.Card, conformance.Replay(ctx, tr, ag.Card, conformance.ReferenceWalkthrough(), &conformance.ReplayOptions{Strict: strict, StrictText: true})
}

// The walkthrough replays clean, texts included (the reference agent's:
// every proposal names its label), against the reference agent, in both
// modes, and the contract mode has nothing to tolerate.
func TestReplayAgainstReferenceAgent(t *testing.T) {
	for _, strict := range []bool{false, true} {
		if _, r := replayReference(t, agent.Options{}, strict); !r.Passed || len(r.Tolerances) != 0 {
			t.Fatalf("strict %v: diverged: %v; tolerated %+v", strict, r.Divergence, r.Tolerances)
		}
	}
}

// V8: rollback restores the legacy producer card without changing
// observation bytes: the same walkthrough, byte for byte, replays against
// a reference agent that declares the legacy identifier.
func TestReplayAgainstLegacyReferenceAgent(t *testing.T) {
	card, r := replayReference(t, agent.Options{LegacyURI: true}, false)
	if !card.Legacy {
		t.Fatalf("card declares %s", card.URI)
	}
	if !r.Passed {
		t.Fatalf("diverged: %v", r.Divergence)
	}
}
