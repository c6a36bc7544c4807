package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheckObservationFixturesAndRules(t *testing.T) {
	both := []Modality{NFC, Photo}
	obj := `{"schemaVersion":"0.1","observationId":"scan-1","capturedAt":"2026-09-07T10:00:00Z","intent":"identify","object":{"objectRef":%q,"carrier":"localTag","assurance":"unverifiedTag","payloadSha256":"` + strings.Repeat("0", 64) + `"}}`
	cases := []struct {
		name string
		raw  string
		neg  []Modality
		code string
	}{
		{"urn reference", strings.Replace(obj, "%q", `"urn:agentcall:object:abcdefghijklmnopqrstuvwxyz"`, 1), both, ""},
		{"https reference", strings.Replace(obj, "%q", `"https://objects.example/r/1"`, 1), both, ""},
		{"javascript reference", strings.Replace(obj, "%q", `"javascript:alert(1)"`, 1), both, CodeObservationSchema},
		{"http reference", strings.Replace(obj, "%q", `"http://objects.example/r/1"`, 1), both, CodeObservationSchema},
		{"data reference", strings.Replace(obj, "%q", `"data:text/html,hi"`, 1), both, CodeObservationSchema},
		{"https with userinfo", strings.Replace(obj, "%q", `"https://user:pw@objects.example/"`, 1), both, CodeObservationSchema},
		{"urn with space", strings.Replace(obj, "%q", `"urn:agentcall:object:a b"`, 1), both, CodeObservationSchema},
		{"nfc not negotiated", strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), []Modality{Photo}, CodeObservationNegotiation},
		{"nothing negotiated", strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), nil, CodeObservationNegotiation},
		{"neither object nor image", `{"schemaVersion":"0.1","observationId":"a","capturedAt":"2026-09-07T10:00:00Z","intent":"identify"}`, both, CodeObservationSchema},
		{"bad intent", strings.Replace(strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), "identify", "execute", 1), both, CodeObservationSchema},
		// The contract fixes neither the length of an observationId nor the
		// characters of an objectRef beyond URI syntax: a correct client's
		// are accepted.
		{"long observationId", strings.Replace(strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), "scan-1", strings.Repeat("s", 129), 1), both, ""},
		{"RFC 8141 name", strings.Replace(obj, "%q", `"urn:agentcall:object:Shelf%2F3/box+1?=v=2#f"`, 1), both, ""},
		{"https IPv6 literal", strings.Replace(obj, "%q", `"https://[2001:db8::1]:8443/r?x=1"`, 1), both, ""},
		{"long urn name", strings.Replace(obj, "%q", `"urn:agentcall:object:`+strings.Repeat("n", 3000)+`"`, 1), both, ""},
		{"urn with non-ASCII", strings.Replace(obj, "%q", `"urn:agentcall:object:café"`, 1), both, CodeObservationSchema},
		{"urn without a name", strings.Replace(obj, "%q", `"urn:agentcall:object:"`, 1), both, CodeObservationSchema},
		{"https without a host", strings.Replace(obj, "%q", `"https:///r"`, 1), both, CodeObservationSchema},
		{"wrong schemaVersion", strings.Replace(strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), `"0.1"`, `"0.2"`, 1), both, CodeObservationSchema},
		{"digest upper case", strings.Replace(strings.Replace(obj, "%q", `"urn:agentcall:object:x"`, 1), strings.Repeat("0", 64), strings.Repeat("A", 64), 1), both, CodeObservationSchema},
		{"not json", `{`, both, CodeObservationSchema},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := CheckObservationJSON([]byte(c.raw), c.neg)
			if c.code == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantCode(t, err, c.code)
		})
	}
}

func TestCombinedObservationNeedsBoth(t *testing.T) {
	data := makeJPEG(t, 8, 8)
	obs := &Observation{SchemaVersion: "0.1", ObservationID: "x", CapturedAt: "2026-01-01T00:00:00Z", Intent: "inspect",
		Object: &Object{ObjectRef: "urn:agentcall:object:x", Carrier: CarrierLocalTag, Assurance: AssuranceUnverified, PayloadSHA256: strings.Repeat("0", 64)},
		Image:  imageOf(data, 8, 8)}
	wantCode(t, CheckObservation(obs, []Modality{NFC}), CodeObservationNegotiation)
	wantCode(t, CheckObservation(obs, []Modality{Photo}), CodeObservationNegotiation)
	if err := CheckObservation(obs, []Modality{NFC, Photo}); err != nil {
		t.Fatal(err)
	}
}

func TestFrameRules(t *testing.T) {
	big := []byte(`{"type":"user.turn","turn":1,"text":"` + strings.Repeat("a", MaxFrameBytes) + `"}`)
	_, err := ParseClientMessage(big)
	wantCode(t, err, CodeFrameSize)
	exact := make([]byte, MaxFrameBytes+1)
	wantCode(t, CheckFrame(exact, false), CodeFrameSize)
	if err := CheckFrame(exact[:MaxFrameBytes], false); err != nil {
		t.Errorf("a frame of exactly 128 KiB is allowed: %v", err)
	}
	wantCode(t, CheckFrame([]byte(`{}`), true), CodeFrameBinary)
	_, err = ParseClientMessage([]byte("{\"type\":\"user.turn\",\"turn\":1,\"text\":\"\xff\"}"))
	wantCode(t, err, CodeFrameUTF8)
	_, err = ParseClientMessage([]byte(`[1,2]`))
	wantCode(t, err, CodeFrameJSON)
	_, err = ParseClientMessage([]byte(`{"type":"user.turn"} trailing`))
	wantCode(t, err, CodeFrameJSON)
	_, err = ParseEnvelope([]byte(`"x"`))
	wantCode(t, err, CodeFrameJSON)
}

func TestParseClientMessageRules(t *testing.T) {
	cases := []struct {
		raw  string
		code string
	}{
		{`{"type":"session.start","sessionId":"s","clientCapabilities":{"physicalObservations":{"modalities":["nfc","photo"]}}}`, ""},
		{`{"type":"session.start"}`, CodeMessageSchema},
		{`{"type":"session.start","sessionId":"s","clientCapabilities":{"physicalObservations":{"modalities":["nfc","nfc"]}}}`, CodeMessageSchema},
		{`{"type":"session.start","sessionId":"s","clientCapabilities":{"audioTurnControl":{"mode":"implicit"}}}`, CodeMessageSchema},
		{`{"type":"user.turn","turn":0,"text":"hi"}`, CodeMessageSchema},
		{`{"type":"user.turn","turn":1.5,"text":"hi"}`, CodeMessageSchema},
		{`{"type":"user.turn","turn":1}`, CodeMessageSchema},
		{`{"type":"user.turn","turn":1,"text":"hi","context":[{"description":"d","value":"v"}],"future":1}`, ""},
		{`{"type":"user.observation","turn":1,"observation":{"schemaVersion":"0.1"}}`, CodeObservationSchema},
		{`{"type":"user.observation","turn":1}`, CodeMessageSchema},
		{`{"type":"ack","sequence":0}`, CodeMessageSchema},
		{`{"type":"audio.turn.start"}`, CodeMessageSchema},
		{`{"type":"tool.call"}`, CodeMessageSchema},
		{`{}`, CodeMessageSchema},
	}
	for _, c := range cases {
		_, err := ParseClientMessage([]byte(c.raw))
		if c.code == "" {
			if err != nil {
				t.Errorf("%s: %v", c.raw, err)
			}
			continue
		}
		if got := Codes(err); len(got) != 1 || got[0] != c.code {
			t.Errorf("%s: want %s, got %v", c.raw, c.code, got)
		}
	}
}

func TestEnvelopeEncoding(t *testing.T) {
	for _, ev := range []Event{
		{Type: EventSessionEstablished},
		{Type: EventRunStarted},
		{Type: EventTextDelta, Text: "hi"},
		{Type: EventSpeechSegment, SegmentID: "s1", Text: "hi", Stable: true},
		{Type: EventInteractionRequested, InteractionID: "turn-5-nfc", Kind: KindNFCScan, Prompt: "Tap", SpokenPrompt: "Tap"},
		{Type: EventInteractionResolved, InteractionID: "turn-5-nfc", Outcome: OutcomeAnswered},
		{Type: EventFailure, Code: CodeTurnOrder, Message: "m"},
		{Type: EventRunCompleted},
	} {
		b, err := MarshalEnvelope(&Envelope{Sequence: 3, Event: ev})
		if err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		back, err := ParseEnvelope(b)
		if err != nil || back.Event != ev || back.Sequence != 3 {
			t.Errorf("%s: round trip gave %+v, %v", ev.Type, back, err)
		}
	}
	b, _ := MarshalEnvelope(&Envelope{Sequence: 1, Event: Event{Type: EventSessionEstablished}})
	if string(b) != `{"sequence":1,"event":{"resumed":false,"type":"session.established"}}` {
		t.Errorf("session.established encodes as %s", b)
	}
	b, _ = json.Marshal(Event{Type: EventInteractionRequested, InteractionID: "i", Kind: KindPhotoCapture})
	if !strings.Contains(string(b), `"options":[]`) || !strings.Contains(string(b), `"allowsFreeform":false`) {
		t.Errorf("interaction.requested encodes as %s", b)
	}
}

func TestParseEnvelopeRules(t *testing.T) {
	for raw, code := range map[string]string{
		`{"sequence":0,"event":{"type":"run.started"}}`:                                              CodeEventSchema,
		`{"event":{"type":"run.started"}}`:                                                           CodeEventSchema,
		`{"sequence":1,"event":{"type":"session.established"}}`:                                      CodeEventSchema,
		`{"sequence":1,"event":{"type":"speech.segment","segmentId":"a","text":"b","stable":false}}`: CodeEventSchema,
		`{"sequence":1,"event":{"type":"interaction.requested","interactionId":"a","kind":"physical.nfc.scan","prompt":"p","spokenPrompt":"p","options":["x"],"allowsFreeform":false}}`: CodeEventSchema,
		`{"sequence":1,"event":{"type":"interaction.requested","interactionId":"a","kind":"physical.mic","prompt":"p","spokenPrompt":"p","options":[],"allowsFreeform":false}}`:         CodeEventSchema,
		`{"sequence":1,"event":{"type":"interaction.resolved","interactionId":"a","outcome":"maybe"}}`:                                                                                  CodeEventSchema,
		`{"sequence":1,"event":{"type":"failure","code":"X Y","message":"m"}}`:                                                                                                          "",
		`{"sequence":1,"event":{"type":"failure","message":"m"}}`:                                                                                                                       CodeEventSchema,
		`{"sequence":1,"event":{"type":"interaction.resolved","interactionId":"","outcome":"answered"}}`:                                                                                CodeEventSchema,
		`{"sequence":1,"event":{"type":"vendor.custom","anything":{"a":1}}}`:                                                                                                            "",
	} {
		_, err := ParseEnvelope([]byte(raw))
		if code == "" {
			if err != nil {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		wantCode(t, err, code)
	}
}

func TestFailureFromError(t *testing.T) {
	ev := Failure(newError(CodeImageJPEG, "JPEG does not decode"))
	if ev.Code != CodeImageJPEG || ev.Message != "JPEG does not decode" {
		t.Errorf("%+v", ev)
	}
	long := newError(CodeTurnOrder, "%s", strings.Repeat("x", 5000))
	if len(long.Message) > MaxMessageLen+len("…") {
		t.Errorf("message not bounded: %d", len(long.Message))
	}
}
