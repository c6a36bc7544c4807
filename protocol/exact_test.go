package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Keys that differ from a field name only by case (or Unicode folding: the
// Kelvin sign folds to k, the long s to s) are unknown members to the
// schema, so it allows them; encoding/json would let them overwrite the
// validated field. Every parser must ignore them.

func TestExactKeysEnvelope(t *testing.T) {
	long := strings.Repeat("x", 120000)
	cases := []struct {
		name, frame string
		check       func(*Envelope) bool
	}{
		{"TEXT", `{"sequence":2,"event":{"type":"text.delta","text":"hi","TEXT":"` + long + `"}}`,
			func(e *Envelope) bool { return e.Event.Text == "hi" }},
		{"CODE", `{"sequence":2,"event":{"type":"failure","code":"run.order","message":"m","CODE":"NOT A VALID CODE\u001b[31m"}}`,
			func(e *Envelope) bool { return e.Event.Code == "run.order" }},
		{"TYPE", `{"sequence":2,"event":{"type":"x.d","TYPE":"interaction.requested","interactionId":"i","kind":"physical.nfc.scan",` +
			`"PROMPT":"` + strings.Repeat("p", 100000) + `","prompt":"","spokenPrompt":"","options":[],"allowsFreeform":false}}`,
			func(e *Envelope) bool { return e.Event.Type == "x.d" && e.Event.Prompt == "" }},
		{"Kelvin", `{"sequence":2,"event":{"type":"interaction.requested","interactionId":"i","kind":"physical.nfc.scan","\u212aind":"physical.photo.capture",` +
			`"prompt":"p","spokenPrompt":"s","options":[],"allowsFreeform":false}}`,
			func(e *Envelope) bool { return e.Event.Kind == KindNFCScan }},
		{"SEQUENCE", `{"sequence":2,"SEQUENCE":1,"event":{"type":"run.started"}}`,
			func(e *Envelope) bool { return e.Sequence == 2 }},
		{"RESUMED", `{"sequence":1,"event":{"type":"session.established","resumed":false,"RESUMED":true}}`,
			func(e *Envelope) bool { return !e.Event.Resumed }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte(c.frame))
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !c.check(env) {
				t.Fatalf("a case-variant key overwrote a validated field: %+v", env.Event)
			}
			checkEnvelopeBounds(t, env)
		})
	}
}

func TestExactKeysClientMessage(t *testing.T) {
	obs := `{"schemaVersion":"0.1","observationId":"scan-1","capturedAt":"2026-09-07T10:00:00Z","intent":"identify",` +
		`"object":{"objectRef":"urn:agentcall:object:visible","OBJECTREF":"urn:agentcall:object:hidden","carrier":"localTag","assurance":"unverifiedTag","payloadSha256":"` + strings.Repeat("0", 64) + `"}}`
	cases := []struct {
		name, frame string
		check       func(*ClientMessage) bool
	}{
		{"TEXT", `{"type":"user.turn","turn":1,"text":"hi","TEXT":"` + strings.Repeat("x", 120000) + `"}`,
			func(m *ClientMessage) bool { return m.Text == "hi" }},
		{"TYPE", `{"type":"ack","sequence":1,"TYPE":"user.turn","turn":3,"text":"x"}`,
			func(m *ClientMessage) bool { return m.Type == TypeAck }},
		{"OBJECTREF", `{"type":"user.observation","turn":1,"observation":` + obs + `}`,
			func(m *ClientMessage) bool { return m.Observation.Object.ObjectRef == "urn:agentcall:object:visible" }},
		{"long s", `{"type":"session.start","sessionId":"a","\u017fessionId":"b"}`,
			func(m *ClientMessage) bool { return m.SessionID == "a" }},
		{"MODALITIES", `{"type":"session.start","sessionId":"a","clientCapabilities":{"physicalObservations":{"modalities":["nfc"],"MODALITIES":["photo","photo","nfc"]}}}`,
			func(m *ClientMessage) bool { return len(m.ClientCapabilities.Modalities()) == 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, err := ParseClientMessage([]byte(c.frame))
			if err != nil {
				t.Fatalf("rejected: %v", err)
			}
			if !c.check(m) {
				t.Fatalf("a case-variant key overwrote a validated field: %+v", m)
			}
			checkClientBounds(t, m)
		})
	}
	o, err := CheckObservationJSON([]byte(obs), bothModalities)
	if err != nil || o.Object.ObjectRef != "urn:agentcall:object:visible" {
		t.Fatalf("observation: %v %+v", err, o)
	}
}

func TestExactKeysCard(t *testing.T) {
	card := publicCard(t, "public")
	phys := params(card)["physicalObservations"].(map[string]any)
	phys["accepted"] = []string{"nfc"}
	phys["agentRequests"] = []string{"nfc"}
	phys["ACCEPTED"] = []string{"photo", "photo", "nfc"}
	params(card)["AGUI"] = map[string]any{"url": "https://evil.example/x", "transport": "http.sse"}
	c, err := ParseCard(mustJSON(t, card))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Params.PhysicalObservations.Accepted; len(got) != 1 || got[0] != NFC {
		t.Fatalf("ACCEPTED overwrote accepted: %v", got)
	}
	if c.Params.AGUI.Transport != TransportWebSocket {
		t.Fatalf("AGUI overwrote agui: %+v", c.Params.AGUI)
	}
}

func TestExactKeysPassport(t *testing.T) {
	p, err := ParsePassport([]byte(`{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:a","label":"A",` +
		`"facts":[{"name":"n","value":"v","VALUE":"` + strings.Repeat("v", 5000) + `"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Facts) != 1 || p.Facts[0].Value != "v" {
		t.Fatalf("an additive member folded onto a fact: %+v", p.Facts)
	}
}

// The helpers below state the documented bounds independently of the
// parsers' own checks: whatever a parser accepts must satisfy them.

func rn(s string) int { return utf8.RuneCountInString(s) }

func checkEnvelopeBounds(t *testing.T, env *Envelope) {
	t.Helper()
	e := env.Event
	ok := env.Sequence >= 1
	switch e.Type {
	case EventSpeechSegment:
		ok = ok && e.Stable
	case EventInteractionRequested:
		ok = ok && (e.Kind == KindNFCScan || e.Kind == KindPhotoCapture) && e.InteractionID != "" && !e.AllowsFreeform
	case EventInteractionResolved:
		ok = ok && e.InteractionID != "" && (e.Outcome == OutcomeAnswered || e.Outcome == OutcomeCancelled)
	}
	if !ok {
		t.Fatalf("accepted envelope breaks a documented bound: %+v", env)
	}
}

func checkClientBounds(t *testing.T, m *ClientMessage) {
	t.Helper()
	ok := true
	switch m.Type {
	case TypeSessionStart:
		mods := m.ClientCapabilities.Modalities()
		ok = len(mods) <= 2 && (len(mods) < 2 || mods[0] != mods[1])
	case TypeUserTurn:
		ok = m.Turn >= 1
	case TypeUserObservation:
		ok = m.Turn >= 1 && m.Observation != nil
		if ok {
			checkObservationBounds(t, m.Observation)
		}
	case TypeAck:
		ok = ok && m.Sequence >= 1
	case TypeAudioTurnStart, TypeAudioTurnCommit, TypeAudioTurnCancel:
		ok = ok && m.Turn >= 1
	case TypeResponseCancel, TypeSessionEnd:
	default:
		ok = false
	}
	if !ok {
		t.Fatalf("accepted client message breaks a documented bound: %+v", m)
	}
}

func checkObservationBounds(t *testing.T, o *Observation) {
	t.Helper()
	ok := o.SchemaVersion == "0.1" && (o.Object != nil || o.Image != nil)
	if o.Object != nil {
		ref := o.Object.ObjectRef
		ok = ok && (strings.HasPrefix(ref, ObjectRefPrefix) || strings.HasPrefix(ref, "https://")) &&
			!strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r >= 0x7f })
	}
	if im := o.Image; im != nil {
		ok = ok && im.MediaType == "image/jpeg" && im.ByteCount >= 1 && im.ByteCount <= 61440 &&
			im.PixelWidth >= 1 && im.PixelWidth <= 1024 && im.PixelHeight >= 1 && im.PixelHeight <= 1024
	}
	if !ok {
		t.Fatalf("accepted observation breaks a documented bound: %+v", o)
	}
}

func checkCardBounds(t *testing.T, c *Card) {
	t.Helper()
	for _, ms := range [][]Modality{c.Params.PhysicalObservations.Accepted, c.Params.PhysicalObservations.AgentRequests} {
		if len(ms) > 2 || (len(ms) == 2 && ms[0] == ms[1]) {
			t.Fatalf("accepted card has modality list %v", ms)
		}
		for _, m := range ms {
			if m != NFC && m != Photo {
				t.Fatalf("accepted card has modality %q", m)
			}
		}
	}
	for _, m := range c.Params.PhysicalObservations.AgentRequests {
		if !c.Accepts(m) {
			t.Fatalf("accepted card requests %s without accepting it", m)
		}
	}
}

// caseVariantSeeds are the examples, for the fuzz corpora.
var caseVariantSeeds = []string{
	`{"sequence":2,"event":{"type":"text.delta","text":"hi","TEXT":"` + strings.Repeat("x", 20000) + `"}}`,
	`{"sequence":2,"event":{"type":"failure","code":"x","message":"m","CODE":"NOT A VALID CODE\u001b[31m"}}`,
	`{"sequence":2,"event":{"type":"x.d","TYPE":"interaction.requested","interactionId":"i","kind":"physical.nfc.scan","prompt":"","PROMPT":"` + strings.Repeat("p", 2000) + `","spokenPrompt":"","options":[],"allowsFreeform":false}}`,
	`{"type":"user.turn","turn":1,"text":"a","TEXT":"` + strings.Repeat("x", 20000) + `"}`,
	`{"type":"user.observation","turn":1,"observation":{"schemaVersion":"0.1","observationId":"o","capturedAt":"2026-09-07T10:00:00Z","intent":"identify","object":{"objectRef":"urn:agentcall:object:a","OBJECTREF":"urn:agentcall:object:b","carrier":"localTag","assurance":"unverifiedTag","payloadSha256":"` + strings.Repeat("0", 64) + `"}}}`,
}

func TestCaseVariantSeedsAreParsedExactly(t *testing.T) {
	for _, s := range caseVariantSeeds {
		var generic map[string]any
		if err := json.Unmarshal([]byte(s), &generic); err != nil {
			t.Fatalf("seed is not JSON: %v", err)
		}
		if _, ok := generic["sequence"]; ok {
			env, err := ParseEnvelope([]byte(s))
			if err != nil {
				t.Fatal(err)
			}
			checkEnvelopeBounds(t, env)
			continue
		}
		m, err := ParseClientMessage([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		checkClientBounds(t, m)
	}
}
