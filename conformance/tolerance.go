package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// Tolerances the default (contract) mode applies, as they appear in
// reports. Each is an equivalence the contract sets; docs/conformance.md
// says which sentence of it.
const (
	// TolTextSplit: a text came in a different number of text.delta
	// events than the trace's ("followed by text.delta with text").
	TolTextSplit = "text.split"
	// TolSpeechSegment: a run carried a different number of
	// speech.segment events than the trace's ("optional stable
	// speech.segment").
	TolSpeechSegment = "speech.segment"
	// TolUnknownEvent: an event type the contract does not define was
	// skipped ("clients ignore them").
	TolUnknownEvent = "event.unknown"
	// TolUnknownField: an envelope or event carried members the contract
	// does not define ("Additive optional fields may be introduced").
	TolUnknownField = "field.unknown"
	// TolSequenceGap: a sequence was more than one above the last
	// ("strictly increasing positive sequence").
	TolSequenceGap = "sequence.gap"
	// TolTurnDuringRun: a trace's client turn came while a run was active
	// or awaited ("Only one run is active" binds the agent's runs).
	TolTurnDuringRun = "turn.during-run"
	// TolRequestAcrossRuns: the agent placed its runs around a request
	// differently from the trace: it completed a run while the request was
	// pending and answered in a new one, or asked outside a run (the
	// contract sets no run for a request or its resolution).
	TolRequestAcrossRuns = "request.across-runs"
)

// Tolerance is one equivalence the default mode applied: where first, what,
// and how often.
type Tolerance struct {
	Step      int    `json:"step"` // 1-based trace step it first applied at
	Tolerance string `json:"tolerance"`
	Detail    string `json:"detail"`
	Count     int    `json:"count"`
}

// maxTolerances bounds a report: an agent can repeat a tolerated
// difference forever, and every distinct one is named by the agent's
// strings (event types, member names).
const maxTolerances = 64

// tolerances collects what a check tolerated, one entry per distinct
// (tolerance, key), counting repeats.
type tolerances struct {
	list    []Tolerance
	keys    map[string]int // tolerance+key → index in list
	dropped int            // distinct entries beyond maxTolerances
}

func (t *tolerances) add(step int, tol, key, detail string) {
	if t.keys == nil {
		t.keys = map[string]int{}
	}
	k := tol + "\x00" + key
	if i, ok := t.keys[k]; ok {
		t.list[i].Count++
		return
	}
	if len(t.list) >= maxTolerances {
		t.dropped++
		return
	}
	t.keys[k] = len(t.list)
	t.list = append(t.list, Tolerance{Step: step + 1, Tolerance: tol, Detail: detail, Count: 1})
}

// knownMembers lists, per event type, the members the contract defines;
// "" is the envelope's own.
var knownMembers = map[string][]string{
	"":                                 {"sequence", "event"},
	protocol.EventSessionEstablished:   {"type", "resumed"},
	protocol.EventRunStarted:           {"type"},
	protocol.EventRunCompleted:         {"type"},
	protocol.EventTextDelta:            {"type", "text"},
	protocol.EventSpeechSegment:        {"type", "segmentId", "text", "stable"},
	protocol.EventInteractionRequested: {"type", "interactionId", "kind", "prompt", "spokenPrompt", "options", "allowsFreeform"},
	protocol.EventInteractionResolved:  {"type", "interactionId", "outcome"},
	protocol.EventFailure:              {"type", "code", "message"},
}

func knownEvent(typ string) bool {
	_, ok := knownMembers[typ]
	return ok && typ != ""
}

// unknownMembers names the members of a schema-valid envelope frame that
// the contract does not define for its event type, sorted, each clipped:
// they are the agent's strings. Keys match exactly, as the parser's do, so
// "TEXT" beside "text" is unknown. Unknown event types have no members to
// judge.
func unknownMembers(frame []byte, typ string) []string {
	if !knownEvent(typ) {
		return nil
	}
	var env map[string]json.RawMessage
	if json.Unmarshal(frame, &env) != nil {
		return nil
	}
	var ev map[string]json.RawMessage
	json.Unmarshal(env["event"], &ev)
	var out []string
	for k := range env {
		if !slices.Contains(knownMembers[""], k) {
			out = append(out, quote(k))
		}
	}
	for k := range ev {
		if !slices.Contains(knownMembers[typ], k) {
			out = append(out, "event."+quote(k))
		}
	}
	slices.Sort(out)
	return out
}

// quote makes an agent's string safe for a terminal and a report line.
func quote(s string) string {
	q := fmt.Sprintf("%q", clip(s, 40))
	return strings.Trim(q, `"`)
}

func names(list []string) string {
	const max = 4
	if len(list) > max {
		return strings.Join(list[:max], ", ") + fmt.Sprintf(" and %d more", len(list)-max)
	}
	return strings.Join(list, ", ")
}
