package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/conformance"
)

func TestReplayCommand(t *testing.T) {
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()

	code, out, errs := run(t, "replay", "--agent", srv.URL, "--allow-insecure-local")
	if code != 0 || !strings.Contains(out, "conforms over websocket: 69 of 69 steps matched") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	// Texts too, against the walkthrough as the reference agent words it.
	code, out, errs = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--strict-text", "--trace", referenceTraceFile(t))
	if code != 0 || !strings.Contains(out, "69 of 69 steps matched") {
		t.Fatalf("strict: exit %d\n%s%s", code, out, errs)
	}
	// Without the local policy, http is refused before any connection.
	if code, _, errs := run(t, "replay", "--agent", srv.URL); code != 1 || !strings.Contains(errs, "--allow-insecure-local") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A trace the agent does not follow diverges, and the report says where.
	f, _ := conformance.Parse(conformance.PublicFixtures)
	raw := strings.Replace(string(conformance.PublicFixtures), `"text": "This is Workshop router."`, `"text": "Something else."`, 1)
	path := filepath.Join(t.TempDir(), "trace.json")
	os.WriteFile(path, []byte(raw), 0o600)
	code, out, _ = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--strict-text", "--trace", path)
	if code != 1 || !strings.Contains(out, "diverged at step") || !strings.Contains(out, "different text") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if len(f.Walkthrough) != 69 {
		t.Fatalf("public walkthrough has %d steps", len(f.Walkthrough))
	}
	if code, _, _ := run(t, "replay", "--allow-insecure-local"); code != 2 {
		t.Fatalf("missing --agent: exit %d", code)
	}
}

// referenceTraceFile writes conformance.ReferenceWalkthrough as a trace file.
func referenceTraceFile(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(conformance.ReferenceWalkthrough())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "reference-trace.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Over WebRTC, replay sends the trace's session id (proof-1, the one its
// session.start carries) as AgentCall-Session-ID, not a random one.
func TestReplayWebRTCSessionIDHeader(t *testing.T) {
	a, err := agent.New(&agent.Options{Transport: "webrtc", Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ids <- r.Header.Get("AgentCall-Session-ID")
		}
		a.ServeHTTP(w, r)
	}))
	defer func() { srv.Close(); a.Close() }()
	code, out, errs := run(t, "replay", "--agent", srv.URL, "--allow-insecure-local")
	if code != 0 || !strings.Contains(out, "conforms over webrtc") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if got := <-ids; got != "proof-1" {
		t.Fatalf("AgentCall-Session-ID %q; the trace's session.start says proof-1", got)
	}
}

// speechTrace writes the public walkthrough with one speech.segment after
// its first text.delta, the later sequences moved up by one.
func speechTrace(t *testing.T) string {
	t.Helper()
	f, err := conformance.Parse(conformance.PublicFixtures)
	if err != nil {
		t.Fatal(err)
	}
	seg := conformance.Step{Direction: "server", Message: json.RawMessage(`{"sequence": 4, "event": {"type": "speech.segment", "segmentId": "s-1", "text": "Unknown object.", "stable": true}}`)}
	steps := append(slices.Clone(f.Walkthrough[:5]), seg)
	for _, s := range f.Walkthrough[5:] {
		if s.Direction == "server" {
			var env map[string]any
			json.Unmarshal(s.Message, &env)
			env["sequence"] = env["sequence"].(float64) + 1
			s.Message, _ = json.Marshal(env)
		}
		steps = append(steps, s)
	}
	b, _ := json.Marshal(steps)
	path := filepath.Join(t.TempDir(), "speech-trace.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The reference agent says no speech.segment: by default replay tolerates
// that and says so (in text and in --json); --strict reports the first
// difference. Without differences, both modes pass.
func TestReplayCommandModes(t *testing.T) {
	a, err := agent.New(&agent.Options{Physical: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(a)
	defer func() { srv.Close(); a.Close() }()
	speech := speechTrace(t)

	code, out, errs := run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--trace", speech)
	if code != 0 || !strings.Contains(out, "tolerated at step 7 (speech.segment, 1×): 0 speech.segment in this run; the trace has 1") ||
		!strings.Contains(out, "70 of 70 steps matched (contract mode)") {
		t.Fatalf("default: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--trace", speech, "--json")
	var rep struct {
		Mode       string                  `json:"mode"`
		Passed     bool                    `json:"passed"`
		Tolerances []conformance.Tolerance `json:"tolerances"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep.Mode != "contract" || !rep.Passed ||
		len(rep.Tolerances) != 1 || rep.Tolerances[0] != (conformance.Tolerance{Step: 7, Tolerance: "speech.segment", Detail: "0 speech.segment in this run; the trace has 1", Count: 1}) {
		t.Fatalf("--json: exit %d %v\n%s", code, err, out)
	}
	code, out, _ = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--trace", speech, "--strict")
	if code != 1 || !strings.Contains(out, "diverged at step 6 (server): wrong event type; expected #4 speech.segment") || !strings.Contains(out, "(strict mode)") {
		t.Fatalf("--strict: exit %d\n%s", code, out)
	}
	code, out, errs = run(t, "replay", "--agent", srv.URL, "--allow-insecure-local", "--strict", "--strict-text", "--trace", referenceTraceFile(t))
	if code != 0 || !strings.Contains(out, "69 of 69 steps matched (strict mode)") || strings.Contains(out, "tolerated") {
		t.Fatalf("--strict against the reference agent: exit %d\n%s%s", code, out, errs)
	}
}
