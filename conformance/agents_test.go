package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/conformance"
	"github.com/agentcall/acbridge/internal/wsframe"
	"github.com/coder/websocket"
	"github.com/pion/datachannel"
)

// Independent test agents: each plays the server side of its own trace
// (read one client frame per client step, send the server steps verbatim)
// over a real WebSocket or a real WebRTC data channel, while Replay plays
// the public walkthrough against it.

// frames is one side of an AG-UI connection.
type frames struct {
	read  func(ctx context.Context) ([]byte, error)
	write func(ctx context.Context, b []byte) error
}

// play plays served, copying what the client sent to received (if not nil).
func play(ctx context.Context, f frames, served []conformance.Step, received chan<- []byte) {
	for _, st := range served {
		if st.Direction == "client" {
			b, err := f.read(ctx)
			if err != nil {
				return
			}
			if received != nil {
				received <- bytes.Clone(b)
			}
			continue
		}
		if err := f.write(ctx, st.Message); err != nil {
			return
		}
	}
	for {
		if _, err := f.read(ctx); err != nil {
			return
		}
	}
}

var transports = []string{"websocket", "webrtc"}

// dialAgent serves served over transport and dials it as replay does.
func dialAgent(t *testing.T, transport string, served []conformance.Step, received chan<- []byte) (client.Transport, *client.Discovered) {
	t.Helper()
	ctx := context.Background()
	if transport == "websocket" {
		srv := clienttest.NewServer(t, func(ctx context.Context, c *websocket.Conn, _ *http.Request) {
			play(ctx, frames{
				read:  func(ctx context.Context) ([]byte, error) { return wsframe.Read(ctx, c) },
				write: func(ctx context.Context, b []byte) error { return wsframe.Write(ctx, c, b) },
			}, served, received)
		})
		ag, err := client.Discover(ctx, srv.Base(), "", srv.Policy())
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ag.Dial(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return tr, ag
	}
	fake := clienttest.NewRTCFake(t)
	fake.Script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
		buf := make([]byte, 128<<10)
		play(ctx, frames{
			read: func(context.Context) ([]byte, error) {
				n, _, err := raw.ReadDataChannel(buf)
				return buf[:n], err
			},
			write: func(_ context.Context, b []byte) error {
				_, err := raw.WriteDataChannel(b, true)
				return err
			},
		}, served, received)
		raw.Close()
	}
	ag := fake.Discover(t)
	tr, err := ag.DialWebRTC(ctx, &client.WebRTCOptions{SessionID: "proof-1"})
	if err != nil {
		t.Fatal(err)
	}
	return tr, ag
}

func replayOver(t *testing.T, transport string, served, trace []conformance.Step, o conformance.ReplayOptions) *conformance.ReplayReport {
	t.Helper()
	tr, ag := dialAgent(t, transport, served, nil)
	o.StepTimeout = 5 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return conformance.Replay(ctx, tr, ag.Card, trace, &o)
}

// rewrite replaces each server step's envelope by the envelopes f makes of
// it (envelope members, sequence left out) and numbers them 1, 2, 3 ...
func rewrite(t *testing.T, steps []conformance.Step, f func(env map[string]any) []map[string]any) []conformance.Step {
	t.Helper()
	var out []conformance.Step
	seq := 0
	for _, s := range steps {
		if s.Direction != "server" {
			out = append(out, s)
			continue
		}
		var env map[string]any
		if err := json.Unmarshal(s.Message, &env); err != nil {
			t.Fatal(err)
		}
		delete(env, "sequence")
		for _, e := range f(env) {
			seq++
			e["sequence"] = seq
			b, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, conformance.Step{Direction: "server", Message: b})
		}
	}
	return out
}

func event(env map[string]any) map[string]any { return env["event"].(map[string]any) }

func eventType(env map[string]any) string { return event(env)["type"].(string) }

func envelope(ev map[string]any) map[string]any { return map[string]any{"event": ev} }

// withSpeech adds n speech.segment events after each text.delta.
func withSpeech(t *testing.T, steps []conformance.Step, n int) []conformance.Step {
	segment := 0
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		out := []map[string]any{env}
		if eventType(env) != "text.delta" {
			return out
		}
		for range n {
			segment++
			out = append(out, envelope(map[string]any{"type": "speech.segment", "segmentId": fmt.Sprintf("seg-%d", segment), "text": event(env)["text"], "stable": true}))
		}
		return out
	})
}

// splitText sends each text in three text.delta events (split by runes).
func splitText(t *testing.T, steps []conformance.Step) []conformance.Step {
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		if eventType(env) != "text.delta" {
			return []map[string]any{env}
		}
		r := []rune(event(env)["text"].(string))
		a, b := len(r)/3, 2*len(r)/3
		var out []map[string]any
		for _, part := range []string{string(r[:a]), string(r[a:b]), string(r[b:])} {
			out = append(out, envelope(map[string]any{"type": "text.delta", "text": part}))
		}
		return out
	})
}

// unknownEvents adds event types of a vendor's inside every run and after
// it.
func unknownEvents(t *testing.T, steps []conformance.Step) []conformance.Step {
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		switch eventType(env) {
		case "run.started":
			return []map[string]any{env, envelope(map[string]any{"type": "vendor.progress", "percent": 50})}
		case "run.completed":
			return []map[string]any{env, envelope(map[string]any{"type": "vendor.heartbeat"})}
		}
		return []map[string]any{env}
	})
}

// unknownFields adds members of a vendor's to envelopes and events.
func unknownFields(t *testing.T, steps []conformance.Step) []conformance.Step {
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		switch eventType(env) {
		case "text.delta":
			event(env)["x-vendor"] = map[string]any{"voice": "calm"}
		case "run.completed":
			env["traceId"] = "abc"
		case "run.started":
			event(env)["runId"] = "r-1"
		}
		return []map[string]any{env}
	})
}

// acrossRuns completes the run that asks as soon as it asks, and resolves
// each request in a new run; more is sent after the first request.
func acrossRuns(t *testing.T, steps []conformance.Step, more ...map[string]any) []conformance.Step {
	first := true
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		switch eventType(env) {
		case "interaction.requested":
			out := []map[string]any{env, envelope(map[string]any{"type": "run.completed"})}
			if first {
				out = append(out, more...)
			}
			first = false
			return out
		case "interaction.resolved":
			return []map[string]any{envelope(map[string]any{"type": "run.started"}), env}
		}
		return []map[string]any{env}
	})
}

// outsideRuns asks outside any run: the turn's run.started moves to just
// before the resolution.
func outsideRuns(t *testing.T, steps []conformance.Step) []conformance.Step {
	var held map[string]any // a run.started, until the next event says whether it asks
	return rewrite(t, steps, func(env map[string]any) []map[string]any {
		typ := eventType(env)
		if h := held; h != nil {
			held = nil
			if typ == "interaction.requested" {
				return []map[string]any{env}
			}
			return []map[string]any{h, env}
		}
		switch typ {
		case "run.started":
			held = env
			return nil
		case "interaction.resolved":
			return []map[string]any{envelope(map[string]any{"type": "run.started"}), env}
		}
		return []map[string]any{env}
	})
}

func kinds(r *conformance.ReplayReport) []string {
	var out []string
	for _, tol := range r.Tolerances {
		if !slices.Contains(out, tol.Tolerance) {
			out = append(out, tol.Tolerance)
		}
	}
	slices.Sort(out)
	return out
}

// Correct agents that differ from the trace only where the contract
// allows pass the default replay over both transports, each difference
// named in the report; --strict reports the first difference of each.
func TestReplayToleratesWhatTheContractAllows(t *testing.T) {
	public := publicSteps(t)
	cases := []struct {
		name          string
		served, trace []conformance.Step
		strictText    bool
		tolerances    []string
		strictStep    int
		strictReason  string
	}{
		{"omits speech.segment", public, withSpeech(t, public, 1), false,
			[]string{conformance.TolSpeechSegment}, 6, "wrong event type"},
		{"adds several speech.segment", withSpeech(t, public, 2), public, false,
			[]string{conformance.TolSpeechSegment}, 6, "wrong event type"},
		{"splits text over many text.delta", splitText(t, public), public, true,
			[]string{conformance.TolTextSplit}, 6, "wrong event type"},
		{"sends in one text.delta what the trace splits", public, splitText(t, public), true,
			[]string{conformance.TolTextSplit}, 6, "wrong event type"},
		{"unknown event types", unknownEvents(t, public), public, false,
			[]string{conformance.TolUnknownEvent}, 5, "wrong event type"},
		{"unknown members", unknownFields(t, public), public, false,
			[]string{conformance.TolUnknownField}, 4, "members the contract does not define: event.runId"},
		{"skips sequence numbers", renumber(t, public), public, false,
			[]string{conformance.TolSequenceGap}, 4, "different sequence"},
		{"completes its run while its request is pending", acrossRuns(t, public), public, false,
			[]string{conformance.TolRequestAcrossRuns}, 23, "wrong event type"},
		{"asks outside a run", outsideRuns(t, public), public, false,
			[]string{conformance.TolRequestAcrossRuns}, 20, "wrong event type"},
	}
	for _, transport := range transports {
		for _, c := range cases {
			t.Run(transport+"/"+c.name, func(t *testing.T) {
				r := replayOver(t, transport, c.served, c.trace, conformance.ReplayOptions{StrictText: c.strictText})
				if !r.Passed || r.Checked != len(c.trace) || r.Mode != conformance.ModeContract {
					t.Fatalf("default replay failed a correct agent: %v (%d of %d)", r.Divergence, r.Checked, len(c.trace))
				}
				if got := kinds(r); !slices.Equal(got, c.tolerances) {
					t.Fatalf("tolerances %v (%+v); want %v", got, r.Tolerances, c.tolerances)
				}
				r = replayOver(t, transport, c.served, c.trace, conformance.ReplayOptions{Strict: true})
				if r.Passed || r.Divergence == nil || r.Mode != conformance.ModeStrict {
					t.Fatal("--strict passed an agent that differs from the trace")
				}
				if d := r.Divergence; d.Step != c.strictStep || !strings.Contains(d.Reason, c.strictReason) {
					t.Fatalf("--strict: %v; want step %d %q", d, c.strictStep, c.strictReason)
				}
				if len(r.Tolerances) != 0 {
					t.Fatalf("--strict tolerated %+v", r.Tolerances)
				}
			})
		}
	}
}

// An agent that keeps one run where the trace completes its run while the
// request is pending passes too. (--strict would wait for the trace's
// run.completed until the step timeout.)
func TestReplayToleratesOneRunAroundARequest(t *testing.T) {
	public := publicSteps(t)
	trace := acrossRuns(t, public)
	for _, transport := range transports {
		r := replayOver(t, transport, public, trace, conformance.ReplayOptions{StrictText: true})
		if !r.Passed || r.Checked != len(trace) {
			t.Fatalf("%s: %v (%d of %d)", transport, r.Divergence, r.Checked, len(trace))
		}
		if got := kinds(r); !slices.Equal(got, []string{conformance.TolRequestAcrossRuns}) || r.Tolerances[0].Count != 2 {
			t.Fatalf("%s: tolerances %+v", transport, r.Tolerances)
		}
	}
}

// What the contract does set still fails a default replay, over both
// transports.
func TestReplayStillFailsWrongAgents(t *testing.T) {
	public := publicSteps(t)
	find := func(sub string) int { return findStep(t, public, sub) }
	answered := find(`"outcome": "answered"`)
	cases := []struct {
		name   string
		served []conformance.Step
		step   int
		reason string
	}{
		{"wrong interaction outcome", edit(t, public, answered, `"answered"`, `"cancelled"`), answered + 1, "wrong outcome"},
		// run.started and the text.delta after it trade events, not
		// sequences: the text comes before its run.
		{"text before run.started", edit(t, edit(t, public, 3, `"type": "run.started"`, `"type": "text.delta", "text": "early"`),
			4, `"type": "text.delta"`, `"type": "run.started"`), 4, "outside a run"},
		{"a second run.started inside a run", edit(t, public, 4, `"type": "text.delta"`, `"type": "run.started"`), 5, "run.started while a run is active"},
		{"duplicate sequence", edit(t, public, find(`"sequence": 9,`), `"sequence": 9,`, `"sequence": 8,`), find(`"sequence": 9,`) + 1, "sequence"},
		{"no text in a run", edit(t, public, 4, `"type": "text.delta"`, `"type": "vendor.nothing"`), 5, "wrong event type"},
		// Runs around a request are the agent's; the request is not.
		{"an answer to an unknown interactionId", edit(t, acrossRuns(t, public), answered+2, `"interactionId":"turn-5-nfc"`, `"interactionId":"turn-5-other"`),
			answered + 1, "not pending"},
		{"a second request while one is pending", acrossRuns(t, public, envelope(map[string]any{"type": "interaction.requested",
			"interactionId": "second", "kind": "physical.photo.capture", "prompt": "Tap.", "spokenPrompt": "Tap.", "options": []any{}, "allowsFreeform": false})),
			answered + 1, "already pending"},
	}
	for _, transport := range transports {
		for _, c := range cases {
			t.Run(transport+"/"+c.name, func(t *testing.T) {
				r := replayOver(t, transport, c.served, public, conformance.ReplayOptions{})
				if r.Passed || r.Divergence == nil {
					t.Fatal("a wrong agent passed the default replay")
				}
				if d := r.Divergence; d.Step != c.step || !strings.Contains(d.Reason, c.reason) {
					t.Fatalf("%v; want step %d %q", d, c.step, c.reason)
				}
			})
		}
	}
}

// An agent that uses what the contract leaves open in its own events —
// opaque interactionIds with spaces, non-ASCII and 300 characters, a
// text.delta of 20,000 characters — passes the default replay over both
// transports with no tolerance: none of it is a difference from the
// contract.
func TestReplayPassesOpaqueIDsAndLongTexts(t *testing.T) {
	public := publicSteps(t)
	served := append([]conformance.Step(nil), public...)
	long := strings.Repeat("x", 300)
	text := strings.Repeat("ü", 20000)
	var ids, texts int
	for i, st := range served {
		if st.Direction == "client" {
			continue
		}
		s := string(st.Message)
		for _, id := range []string{"turn-5-nfc", "turn-7-photo"} {
			if strings.Contains(s, `"`+id+`"`) {
				s = strings.ReplaceAll(s, `"`+id+`"`, `"req `+id+` — ☃ `+long+`"`)
				ids++
			}
		}
		if texts == 0 && strings.Contains(s, `"text.delta"`) {
			s = strings.Replace(s, `"text": "`, `"text": "`+text, 1)
			texts++
		}
		served[i].Message = json.RawMessage(s)
	}
	if ids != 4 || texts != 1 {
		t.Fatalf("edited %d interaction events and %d texts; want 4 and 1", ids, texts)
	}
	for _, transport := range transports {
		r := replayOver(t, transport, served, public, conformance.ReplayOptions{})
		if !r.Passed || r.Checked != len(public) || len(r.Tolerances) != 0 {
			t.Fatalf("%s: default replay: %v (%d of %d), tolerances %+v", transport, r.Divergence, r.Checked, len(public), r.Tolerances)
		}
	}
}
