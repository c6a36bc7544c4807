package conformancecmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/internal/cli"
	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/keystore"
)

// Replay is "acbridge replay": it plays a walkthrough trace against a live
// agent and returns the exit status. By default it judges the agent by the
// contract and lists what it tolerated; --strict compares in lockstep.
func Replay(ctx context.Context, e *cli.Env, args []string) int {
	fs := cli.NewFlagSet(e, "replay", "--agent URL [--trace FILE] [--transport websocket|webrtc] [--allow-insecure-local] [--token-file FILE] [--strict] [--strict-text] [--json]")
	agentURL := fs.String("agent", "", "agent base `URL` (the card is fetched from URL/.well-known/agent-card.json)")
	tracePath := fs.String("trace", "", "trace `file`: a fixture file's walkthrough or a JSON array of steps (default: the public walkthrough)")
	transport := fs.String("transport", "", "require this transport: websocket or webrtc (default: what the card offers)")
	insecure := fs.Bool("allow-insecure-local", false, "local-development policy: allow http/ws and loopback addresses (loopback only)")
	tokenFile := fs.String("token-file", "", "bearer token `file` (mode 0600), sent only to the card's own origin")
	strict := fs.Bool("strict", false, "compare every envelope with the trace's in lockstep (types, sequences, members) instead of by the contract's equivalences, and report the first difference")
	strictText := fs.Bool("strict-text", false, "also compare the agent's texts with the trace's: each text's concatenation over its text.delta events (with --strict: each text.delta and speech.segment)")
	asJSON := fs.Bool("json", false, "print the report as JSON, with each tolerance the contract mode applied ({step, tolerance, detail, count})")
	if code, ok := cli.ParseFlags(e, fs, args); !ok {
		return code
	}
	if *agentURL == "" {
		fmt.Fprintln(e.Stderr, "acbridge replay: --agent URL is required")
		return 2
	}
	if *transport != "" && *transport != "websocket" && *transport != "webrtc" {
		fmt.Fprintln(e.Stderr, "acbridge replay: --transport must be websocket or webrtc")
		return 2
	}
	raw, err := fixtureBytes(*tracePath)
	var steps []conformance.Step
	if err == nil {
		steps, err = conformance.ParseTrace(raw)
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge replay: %v\n", err)
		return 2
	}
	token := ""
	if *tokenFile != "" {
		if token, err = keystore.LoadToken(*tokenFile); err != nil {
			fmt.Fprintf(e.Stderr, "acbridge replay: %v\n", err)
			return 2
		}
	}
	ag, err := client.Discover(ctx, *agentURL, token, &client.Policy{AllowInsecureLocal: *insecure})
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge replay: %v\n", err)
		return 1
	}
	if *transport != "" && ag.Card.Params.AGUI.Transport != *transport {
		fmt.Fprintf(e.Stderr, "acbridge replay: the agent's card offers transport %q, not %q\n", ag.Card.Params.AGUI.Transport, *transport)
		return 1
	}
	t, err := dialReplay(ctx, ag, conformance.TraceSessionID(steps))
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge replay: %v\n", err)
		return 1
	}
	r := conformance.Replay(ctx, t, ag.Card, steps, &conformance.ReplayOptions{Strict: *strict, StrictText: *strictText})
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		enc.Encode(struct {
			Agent     string `json:"agent"`
			Transport string `json:"transport"`
			*conformance.ReplayReport
		}{ag.Origin, ag.Card.Params.AGUI.Transport, r})
	} else {
		printReplay(e, ag, r)
	}
	if !r.Passed {
		return 1
	}
	return 0
}

// dialReplay opens the card's transport. Over WebRTC the offer's
// AgentCall-Session-ID is the trace's session id, the one its
// session.start carries, as the bridge keeps the two equal; a trace's id
// that cannot be a header value (the contract does not bound its
// characters) leaves the header a random one.
func dialReplay(ctx context.Context, ag *client.Discovered, sessionID string) (client.Transport, error) {
	if ag.Card.Params.AGUI.Transport != "webrtc" || !rtcpeer.ValidSessionID(sessionID) {
		return ag.Dial(ctx)
	}
	t, err := ag.DialWebRTC(ctx, &client.WebRTCOptions{SessionID: sessionID})
	if err != nil {
		return nil, err // not a typed nil inside the interface
	}
	return t, nil
}

func printReplay(e *cli.Env, ag *client.Discovered, r *conformance.ReplayReport) {
	for _, t := range r.Tolerances {
		fmt.Fprintf(e.Stdout, "replay: tolerated at step %d (%s, %d×): %s\n", t.Step, t.Tolerance, t.Count, t.Detail)
	}
	if r.TolerancesDropped > 0 {
		fmt.Fprintf(e.Stdout, "replay: and %d more distinct tolerances\n", r.TolerancesDropped)
	}
	if r.Passed {
		fmt.Fprintf(e.Stdout, "replay: %s conforms over %s: %d of %d steps matched (%s mode)\n", ag.Origin, ag.Card.Params.AGUI.Transport, r.Checked, r.Steps, r.Mode)
		return
	}
	fmt.Fprintf(e.Stdout, "replay: %s diverged at %s\nreplay: %d of %d steps matched before that (%s mode)\n", ag.Origin, r.Divergence, r.Checked, r.Steps, r.Mode)
}
