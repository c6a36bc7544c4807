package conformance

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// A liftable is a client field whose schema bound is acbridge's choice, not
// the contract's (docs/conformance.md, "Bounds acbridge keeps"). A trace
// recorded against another client may go beyond it and still conform.
type liftable struct {
	name  string   // as reported
	types []string // the message types that carry it
	path  []string // inside the message
	// ok is the contract's own rule for the value; a value that breaks
	// it is left for the schema to refuse.
	ok          func(v any) bool
	placeholder any // a value inside acbridge's bound
	restore     func(m *protocol.ClientMessage, v any)
}

func anyString(v any) bool { _, ok := v.(string); return ok }

func nonEmpty(v any) bool { s, ok := v.(string); return ok && s != "" }

// contractObjectRef is what the contract says of objectRef: an
// urn:agentcall:object: reference or an HTTPS one, compared exactly
// ("Never automatically fetch an HTTPS object reference"); any other
// scheme is not a reference (the fixture "executable-object-reference").
// The character set and lengths inside are acbridge's.
func contractObjectRef(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	for _, p := range []string{protocol.ObjectRefPrefix, "https://"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" {
			return true
		}
	}
	return false
}

// contractTime is RFC 3339, without acbridge's 64-character bound.
func contractTime(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

// contractContext is "Optional AG-UI Context entries are {description,
// value} strings", in any number and length.
func contractContext(v any) bool {
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok || !anyString(m["description"]) || !anyString(m["value"]) {
			return false
		}
	}
	return true
}

func str(v any) string { s, _ := v.(string); return s }

var (
	start     = []string{protocol.TypeSessionStart}
	turn      = []string{protocol.TypeUserTurn}
	obs       = []string{protocol.TypeUserObservation}
	turnOrObs = []string{protocol.TypeUserTurn, protocol.TypeUserObservation}
)

var liftables = []liftable{
	{"sessionId", start, []string{"sessionId"}, anyString, "x", func(m *protocol.ClientMessage, v any) { m.SessionID = str(v) }},
	{"text", turn, []string{"text"}, anyString, "x", func(m *protocol.ClientMessage, v any) { m.Text = str(v) }},
	{"interactionId", obs, []string{"interactionId"}, nonEmpty, "x", func(m *protocol.ClientMessage, v any) { m.InteractionID = str(v) }},
	{"context", turnOrObs, []string{"context"}, contractContext, []any{}, func(m *protocol.ClientMessage, v any) {
		b, _ := json.Marshal(v)
		m.Context = nil
		json.Unmarshal(b, &m.Context)
	}},
	{"observationId", obs, []string{"observation", "observationId"}, anyString, "x", func(m *protocol.ClientMessage, v any) {
		if m.Observation != nil {
			m.Observation.ObservationID = str(v)
		}
	}},
	{"capturedAt", obs, []string{"observation", "capturedAt"}, contractTime, "2026-01-01T00:00:00Z", func(m *protocol.ClientMessage, v any) {
		if m.Observation != nil {
			m.Observation.CapturedAt = str(v)
		}
	}},
	{"objectRef", obs, []string{"observation", "object", "objectRef"}, contractObjectRef, protocol.ObjectRefPrefix + "x", func(m *protocol.ClientMessage, v any) {
		if m.Observation != nil && m.Observation.Object != nil {
			m.Observation.Object.ObjectRef = str(v)
		}
	}},
	{"carrier", obs, []string{"observation", "object", "carrier"}, nonEmpty, protocol.CarrierLocalTag, func(m *protocol.ClientMessage, v any) {
		if m.Observation != nil && m.Observation.Object != nil {
			m.Observation.Object.Carrier = str(v)
		}
	}},
}

// at returns the object holding path's last member, or nil.
func at(doc map[string]any, path []string) map[string]any {
	for _, k := range path[:len(path)-1] {
		next, ok := doc[k].(map[string]any)
		if !ok {
			return nil
		}
		doc = next
	}
	return doc
}

// parseClient parses a trace's client message. Strictly it is
// protocol.ParseClientMessage. Otherwise a message that the schema refuses
// only for bounds acbridge chose where the contract sets none (sessionId's
// characters, text and context lengths and counts, objectRef's characters)
// is accepted with its real values, and beyond names those fields. Every
// rule the contract states — types, turns, modalities, the image rules,
// objectRef's schemes, RFC 3339 times, the frame bound — still applies.
func parseClient(raw []byte, strict bool) (m *protocol.ClientMessage, beyond []string, err error) {
	m, err = protocol.ParseClientMessage(raw)
	if err == nil || strict {
		return m, nil, err
	}
	codes := protocol.Codes(err)
	if len(codes) != 1 || (codes[0] != protocol.CodeMessageSchema && codes[0] != protocol.CodeObservationSchema) {
		return nil, nil, err
	}
	if protocol.CheckFrame(raw, false) != nil {
		return nil, nil, err
	}
	// Lift every liftable field that keeps the contract's rule, then check
	// that the message is valid without them: if not, what is wrong is
	// something the contract does state.
	var doc map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return nil, nil, err
	}
	type held struct {
		l   *liftable
		obj map[string]any
		v   any
	}
	var lifted []held
	typ, _ := doc["type"].(string)
	for i := range liftables {
		l := &liftables[i]
		if !slices.Contains(l.types, typ) {
			continue
		}
		obj := at(doc, l.path)
		key := l.path[len(l.path)-1]
		v, present := obj[key]
		if obj == nil || !present || !l.ok(v) {
			continue
		}
		lifted = append(lifted, held{l, obj, v})
		obj[key] = l.placeholder
	}
	parse := func() (*protocol.ClientMessage, error) {
		b, merr := json.Marshal(doc)
		if merr != nil {
			return nil, merr
		}
		return protocol.ParseClientMessage(b)
	}
	lm, lerr := parse()
	if lerr != nil || len(lifted) == 0 {
		return nil, nil, err
	}
	// Name the fields that were beyond acbridge's bounds: the ones whose
	// real value alone makes the message invalid again.
	for _, h := range lifted {
		key := h.l.path[len(h.l.path)-1]
		h.obj[key] = h.v
		if _, e := parse(); e != nil {
			beyond = append(beyond, h.l.name)
		}
		h.obj[key] = h.l.placeholder
	}
	for _, h := range lifted {
		h.l.restore(lm, h.v)
	}
	slices.Sort(beyond)
	return lm, beyond, nil
}
