package protocol

import (
	"strings"
	"testing"
)

// Tests for clauses of the spec that no other test covered on its own
// (docs/conformance.md names the clause of each).

// V2: the observation and passport payloads carry schemaVersion "0.1".
func TestPassportSchemaVersion(t *testing.T) {
	for _, v := range []string{`"0.2"`, `0.1`, `""`} {
		_, err := ParsePassport([]byte(`{"schemaVersion":` + v + `,"objectRef":"urn:agentcall:object:a","label":"A"}`))
		wantCode(t, err, CodePassportSchema)
	}
}

// D4: omission or an empty array means unsupported.
func TestOmittedModalitiesMeanUnsupported(t *testing.T) {
	for name, edit := range map[string]func(map[string]any){
		"omitted": func(p map[string]any) { delete(p, "physicalObservations") },
		"empty arrays": func(p map[string]any) {
			p["physicalObservations"] = map[string]any{"accepted": []any{}, "agentRequests": []any{}}
		},
	} {
		card := publicCard(t, "public")
		edit(params(card))
		c, err := ParseCard(mustJSON(t, card))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		s := started(t, ConfigFromCard(c), NFC, Photo)
		if len(s.Negotiated()) != 0 || len(s.Requestable()) != 0 {
			t.Fatalf("%s: negotiated %v, requestable %v", name, s.Negotiated(), s.Requestable())
		}
		wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 1, Observation: objectObs()}), CodeObservationNegotiation)
	}
}

// D13: cards advertising NFC/photo on openai-realtime-webrtc-1, http.sse,
// realtime.websocket, or another unmapped profile MUST be rejected.
func TestPhysicalOnUnmappedProfilesRejected(t *testing.T) {
	for _, tr := range []string{"openai-realtime-webrtc-1", "http.sse", "realtime.websocket", "grpc"} {
		card := publicCard(t, "public")
		params(card)["agui"].(map[string]any)["transport"] = tr
		_, err := ParseCard(mustJSON(t, card))
		wantCode(t, err, CodeCardTransport)
	}
	// The webrtc transport with another profile object is rejected too.
	card := publicCard(t, "native")
	params(card)["agui"].(map[string]any)["webrtc"].(map[string]any)["profile"] = "openai-realtime-webrtc-1"
	_, err := ParseCard(mustJSON(t, card))
	wantCode(t, err, CodeCardWebRTCProfile)
}

// S8: missing client capabilities mean the empty set.
func TestMissingClientCapabilitiesMeanNone(t *testing.T) {
	s := NewSession(SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities})
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventSessionEstablished})
	if len(s.Negotiated()) != 0 {
		t.Fatalf("negotiated %v without client capabilities", s.Negotiated())
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 1, Observation: objectObs()}), CodeObservationNegotiation)
	server(t, s, Event{Type: EventRunStarted})
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionRequested, InteractionID: "i", Kind: KindNFCScan}}), CodeInteractionForbidden)
}

// S15, S16: observationId is bounded correlation data (any characters, any
// length the frame carries: the contract fixes none); capturedAt is RFC 3339
// data.
func TestObservationIDAndCapturedAt(t *testing.T) {
	obs := func(id, at string) string {
		return `{"schemaVersion":"0.1","observationId":` + id + `,"capturedAt":` + at + `,"intent":"identify","object":{"objectRef":"urn:agentcall:object:x","carrier":"localTag","assurance":"unverifiedTag","payloadSha256":"` + strings.Repeat("0", 64) + `"}}`
	}
	for _, ok := range []string{obs(`"scan 1"`, `"2026-09-07T10:00:00Z"`), obs(`"écran-1"`, `"2026-09-07T10:00:00+02:00"`), obs(`"`+strings.Repeat("s", 128)+`"`, `"2026-09-07T10:00:00.5Z"`),
		obs(`""`, `"2026-09-07T10:00:00Z"`), obs(`"`+strings.Repeat("s", 129)+`"`, `"2026-09-07T10:00:00.123456789123456789123456789123456789123456789Z"`)} {
		if _, err := CheckObservationJSON([]byte(ok), bothModalities); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{obs(`"a"`, `"yesterday"`), obs(`"a"`, `"2026-09-07 10:00"`), obs(`"a"`, `1757239200`)} {
		_, err := CheckObservationJSON([]byte(bad), bothModalities)
		wantCode(t, err, CodeObservationSchema)
	}
}

// S22: only one run is active.
func TestOneRunAtATime(t *testing.T) {
	s := started(t, SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}, NFC)
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted})
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventRunStarted}}), CodeRunOrder)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 2, Text: "again"}), CodeRunActive)
	server(t, s, Event{Type: EventRunCompleted})
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 2, Text: "again"}); err != nil {
		t.Fatalf("a turn after run.completed: %v", err)
	}
}
