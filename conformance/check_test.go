package conformance_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/protocol"
)

func cl(t *testing.T, m map[string]any) conformance.Step {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return conformance.Step{Direction: "client", Message: b}
}

func sv(t *testing.T, seq int, ev map[string]any) conformance.Step {
	t.Helper()
	b, err := json.Marshal(map[string]any{"sequence": seq, "event": ev})
	if err != nil {
		t.Fatal(err)
	}
	return conformance.Step{Direction: "server", Message: b}
}

func start(id any, mods ...string) map[string]any {
	if mods == nil {
		mods = []string{}
	}
	return map[string]any{"type": "session.start", "sessionId": id,
		"clientCapabilities": map[string]any{"physicalObservations": map[string]any{"modalities": mods}}}
}

func userTurn(turn int, text string) map[string]any {
	return map[string]any{"type": "user.turn", "turn": turn, "text": text}
}

func scan(turn int, objectRef string) map[string]any {
	return map[string]any{"type": "user.observation", "turn": turn, "observation": map[string]any{
		"schemaVersion": "0.1", "observationId": "scan-1", "capturedAt": "2026-09-07T10:00:00Z", "intent": "identify",
		"object": map[string]any{"objectRef": objectRef, "carrier": "localTag", "assurance": "unverifiedTag",
			"payloadSha256": strings.Repeat("0", 64)}}}
}

func ev(typ string, kv ...any) map[string]any {
	m := map[string]any{"type": typ}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// run answers a turn: run.started, text.delta, run.completed from seq.
func run(t *testing.T, seq int) []conformance.Step {
	return []conformance.Step{sv(t, seq, ev("run.started")), sv(t, seq+1, ev("text.delta", "text", "ok")), sv(t, seq+2, ev("run.completed"))}
}

func trace(parts ...any) []conformance.Step {
	var out []conformance.Step
	for _, p := range parts {
		switch p := p.(type) {
		case conformance.Step:
			out = append(out, p)
		case []conformance.Step:
			out = append(out, p...)
		}
	}
	return out
}

var nfcBoth = protocol.SessionConfig{Accepted: both, AgentRequests: both}

func codeOf(err error) string {
	var te *conformance.TraceError
	if errors.As(err, &te) {
		if c := protocol.Codes(te.Err); len(c) > 0 {
			return c[0]
		}
	}
	return ""
}

func tolKinds(list []conformance.Tolerance) []string {
	var out []string
	for _, tol := range list {
		if !slices.Contains(out, tol.Tolerance) {
			out = append(out, tol.Tolerance)
		}
	}
	slices.Sort(out)
	return out
}

// A trace whose client input goes beyond bounds acbridge once chose, but
// not beyond the contract's, passes in both modes with no tolerance: the
// schemas hold a trace's client messages to the contract's bounds alone.
func TestCheckTraceClientInputTheContractAllows(t *testing.T) {
	context := make([]any, 20) // once acbridge's: 16 entries
	for i := range context {
		context[i] = map[string]any{"description": "d", "value": strings.Repeat("v", 4200)} // once 4,096
	}
	long := userTurn(1, strings.Repeat("ü", 17000)) // once 16,384 characters
	long["context"] = context
	obs := scan(2, "urn:agentcall:object:Werkstatt%20Router/3") // once [A-Za-z0-9._~:-]
	o := obs["observation"].(map[string]any)
	o["observationId"] = strings.Repeat("s", 300)                 // once 128
	o["object"].(map[string]any)["carrier"] = "local tag (alias)" // once a token
	steps := trace(
		cl(t, start("kiosk 7 — lobby", "nfc")), // once printable ASCII
		sv(t, 1, ev("session.established", "resumed", false)),
		cl(t, long), run(t, 2),
		cl(t, obs), run(t, 5),
		cl(t, map[string]any{"type": "session.end"}),
	)
	for _, strict := range []bool{false, true} {
		tol, err := conformance.CheckTraceReport(steps, nfcBoth, &conformance.TraceOptions{Strict: strict})
		if err != nil || len(tol) != 0 {
			t.Fatalf("strict %v: %v, tolerances %+v; want a pass with none", strict, err, tol)
		}
	}
}

// What the contract does set is still refused in the default mode.
func TestCheckTraceKeepsTheContractsRules(t *testing.T) {
	est := sv(t, 1, ev("session.established", "resumed", false))
	end := cl(t, map[string]any{"type": "session.end"})
	cases := []struct {
		name  string
		steps []conformance.Step
		code  string
	}{
		{"objectRef of another scheme", trace(cl(t, start("s", "nfc")), est, cl(t, scan(1, "javascript:alert(1)")), run(t, 2), end), protocol.CodeObservationSchema},
		{"objectRef prefix only", trace(cl(t, start("s", "nfc")), est, cl(t, scan(1, "urn:agentcall:object:")), run(t, 2), end), protocol.CodeObservationSchema},
		{"capturedAt not RFC 3339", trace(cl(t, start("s", "nfc")), est, cl(t, func() map[string]any {
			m := scan(1, "urn:agentcall:object:a")
			m["observation"].(map[string]any)["capturedAt"] = "yesterday"
			return m
		}()), run(t, 2), end), protocol.CodeObservationSchema},
		{"sessionId not a string", trace(cl(t, start(42, "nfc")), est, end), protocol.CodeMessageSchema},
		{"context entry not strings", trace(cl(t, start("s")), est, cl(t, func() map[string]any {
			m := userTurn(1, "hi")
			m["context"] = []any{map[string]any{"description": "d", "value": 7}}
			return m
		}()), run(t, 2), end), protocol.CodeMessageSchema},
		{"observation not negotiated", trace(cl(t, start("s")), est, cl(t, scan(1, "urn:agentcall:object:a")), run(t, 2), end), protocol.CodeObservationNegotiation},
		{"turn repeated", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), run(t, 2), cl(t, userTurn(1, "b")), run(t, 5), end), protocol.CodeTurnOrder},
		{"turn below a pipelined one", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), cl(t, userTurn(3, "b")), run(t, 2), run(t, 5), cl(t, userTurn(2, "c")), run(t, 8), end), protocol.CodeTurnOrder},
		{"two runs at once", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), sv(t, 2, ev("run.started")), sv(t, 3, ev("run.started")), end), protocol.CodeRunOrder},
		{"text outside a run", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), sv(t, 2, ev("text.delta", "text", "x")), end), protocol.CodeRunOrder},
		{"duplicate sequence", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), sv(t, 2, ev("run.started")), sv(t, 2, ev("run.completed")), end), protocol.CodeSequenceOrder},
		{"resolved a request never made", trace(cl(t, start("s", "nfc")), est, cl(t, userTurn(1, "a")), sv(t, 2, ev("run.started")),
			sv(t, 3, ev("interaction.resolved", "interactionId", "nope", "outcome", "cancelled")), end), protocol.CodeInteractionUnmatched},
		{"ends inside a run", trace(cl(t, start("s")), est, cl(t, userTurn(1, "a")), sv(t, 2, ev("run.started"))), protocol.CodeRunOrder},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := conformance.CheckTraceReport(c.steps, nfcBoth, nil)
			if codeOf(err) != c.code {
				t.Fatalf("%v; want %s", err, c.code)
			}
		})
	}
}

// A client may send its next turn before the run ends: the contract's
// "only one run is active" binds the agent's runs, which stay one at a
// time. Strict mode refuses it, as acbridge's own client never sends so.
func TestCheckTraceTurnDuringRun(t *testing.T) {
	steps := trace(cl(t, start("s")), sv(t, 1, ev("session.established", "resumed", false)),
		cl(t, userTurn(1, "a")), cl(t, userTurn(2, "b")), run(t, 2), run(t, 5),
		cl(t, map[string]any{"type": "session.end"}))
	tol, err := conformance.CheckTraceReport(steps, nfcBoth, nil)
	if err != nil || !slices.Equal(tolKinds(tol), []string{conformance.TolTurnDuringRun}) || tol[0].Step != 4 {
		t.Fatalf("%v %+v", err, tol)
	}
	if _, err := conformance.CheckTraceReport(steps, nfcBoth, &conformance.TraceOptions{Strict: true}); codeOf(err) != protocol.CodeRunActive {
		t.Fatalf("strict: %v", err)
	}
}

// session.end cancels pending work: a trace may end with a request still
// pending once the client ended the session.
func TestCheckTraceEndsWithSessionEnd(t *testing.T) {
	steps := trace(cl(t, start("s", "nfc")), sv(t, 1, ev("session.established", "resumed", false)),
		cl(t, userTurn(1, "scan an object")), sv(t, 2, ev("run.started")),
		sv(t, 3, ev("interaction.requested", "interactionId", "i-1", "kind", "physical.nfc.scan", "prompt", "Tap", "spokenPrompt", "Tap", "options", []any{}, "allowsFreeform", false)),
		cl(t, map[string]any{"type": "session.end"}))
	if _, err := conformance.CheckTraceReport(steps, nfcBoth, nil); err != nil {
		t.Fatalf("default: %v", err)
	}
	if _, err := conformance.CheckTraceReport(steps, nfcBoth, &conformance.TraceOptions{Strict: true}); codeOf(err) != protocol.CodeRunOrder {
		t.Fatalf("strict: %v", err)
	}
}

// The trace checker names the server-side tolerances as replay does.
func TestCheckTraceServerTolerances(t *testing.T) {
	gapped := unknownEvents(t, unknownFields(t, splitText(t, withSpeech(t, renumber(t, publicSteps(t)), 2))))
	tol, err := conformance.CheckTraceReport(gapped, nfcBoth, nil)
	if err != nil {
		t.Fatal(err)
	}
	// rewrite renumbers 1, 2, 3 ...: no gaps left; renumber again.
	tol2, err := conformance.CheckTraceReport(renumber(t, gapped), nfcBoth, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := tolKinds(tol), []string{conformance.TolUnknownEvent, conformance.TolUnknownField}; !slices.Equal(got, want) {
		t.Fatalf("%v; want %v", got, want)
	}
	if !slices.Contains(tolKinds(tol2), conformance.TolSequenceGap) {
		t.Fatalf("%+v", tol2)
	}
}
