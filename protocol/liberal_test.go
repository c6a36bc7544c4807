package protocol

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode"
)

// LiberalIDs are interactionIds a correct agent may send: the contract
// calls the ID opaque and bounds it by nothing but the frame.
var liberalIDs = map[string]string{
	"space":     "scan 1",
	"non-ASCII": "запрос-☃-1",
	"controls":  "id\nforged line\x1b[2J\u202e",
	"long":      strings.Repeat("i", 4000),
}

// What the contract does not bound is the agent's: each event below
// parses, passes the session's rules, and re-encodes unchanged.
func TestEnvelopeAcceptsWhatTheContractAllows(t *testing.T) {
	long := func(n int) string { return strings.Repeat("ä", n) }
	events := map[string]Event{
		"failure RATE_LIMITED":       {Type: EventFailure, Code: "RATE_LIMITED", Message: "slow down"},
		"failure code of 200":        {Type: EventFailure, Code: strings.Repeat("c", 200), Message: "m"},
		"failure message of 5000":    {Type: EventFailure, Code: "x", Message: long(5000)},
		"text.delta of 60000":        {Type: EventTextDelta, Text: long(60000)},
		"speech.segment of 60000":    {Type: EventSpeechSegment, SegmentID: strings.Repeat("s", 500), Text: long(60000), Stable: true},
		"unknown type of 300":        {Type: "vendor." + strings.Repeat("t", 300)},
		"empty segmentId":            {Type: EventSpeechSegment, Text: "t", Stable: true},
		"prompt of 5000":             {Type: EventInteractionRequested, InteractionID: "i", Kind: KindNFCScan, Prompt: long(5000), SpokenPrompt: long(5000)},
		"resolved with a long ID":    {Type: EventInteractionResolved, InteractionID: liberalIDs["long"], Outcome: OutcomeCancelled},
		"resolved with a control ID": {Type: EventInteractionResolved, InteractionID: liberalIDs["controls"], Outcome: OutcomeCancelled},
	}
	for name, e := range events {
		t.Run(name, func(t *testing.T) {
			frame, err := MarshalEnvelope(&Envelope{Sequence: 7, Event: e})
			if err != nil {
				t.Fatal(err)
			}
			env, err := ParseEnvelope(frame)
			if err != nil {
				t.Fatal(err)
			}
			if env.Event != e {
				t.Fatalf("decoded %+v, sent %+v", env.Event, e)
			}
		})
	}
}

// An interaction.requested with any opaque ID keeps the session, and the
// answer echoes the ID byte-exact.
func TestOpaqueInteractionIDEchoedExactly(t *testing.T) {
	for name, id := range liberalIDs {
		t.Run(name, func(t *testing.T) {
			s := started(t, SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}, NFC)
			if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "scan"}); err != nil {
				t.Fatal(err)
			}
			server(t, s, Event{Type: EventRunStarted}, Event{Type: EventInteractionRequested, InteractionID: id, Kind: KindNFCScan, Prompt: "Tap", SpokenPrompt: "Tap"})
			p, ok := s.Pending()
			if !ok || p.ID != id {
				t.Fatalf("pending %+v", p)
			}
			answer := &ClientMessage{Type: TypeUserObservation, Turn: 2, InteractionID: p.ID, Observation: objectObs()}
			frame, err := MarshalClientMessage(answer)
			if err != nil {
				t.Fatal(err)
			}
			var wire struct {
				InteractionID string `json:"interactionId"`
			}
			if err := json.Unmarshal(frame, &wire); err != nil || wire.InteractionID != id {
				t.Fatalf("the answer carries %q (%v), want the exact ID", wire.InteractionID, err)
			}
			m, err := ParseClientMessage(frame)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Client(m); err != nil {
				t.Fatalf("the exact echo was refused: %v", err)
			}
			server(t, s, Event{Type: EventInteractionResolved, InteractionID: id, Outcome: OutcomeAnswered})
		})
	}
}

// The one bound on an interactionId that is not the contract's: at least
// one character. An empty ID cannot be told from no ID, and "an unrelated
// scan without the pending ID cannot satisfy it"; no correct agent can rely
// on an ID that its answer cannot carry.
func TestEmptyInteractionIDRefused(t *testing.T) {
	for _, raw := range []string{
		`{"sequence":2,"event":{"type":"interaction.requested","interactionId":"","kind":"physical.nfc.scan","prompt":"p","spokenPrompt":"p","options":[],"allowsFreeform":false}}`,
		`{"sequence":2,"event":{"type":"interaction.resolved","interactionId":"","outcome":"answered"}}`,
		`{"type":"user.observation","turn":1,"interactionId":"","observation":{"schemaVersion":"0.1","observationId":"o","capturedAt":"2026-09-07T10:00:00Z","intent":"identify","object":{"objectRef":"urn:agentcall:object:a","carrier":"localTag","assurance":"unverifiedTag","payloadSha256":"` + strings.Repeat("0", 64) + `"}}}`,
	} {
		var err error
		code := CodeEventSchema
		if strings.HasPrefix(raw, `{"type"`) {
			_, err = ParseClientMessage([]byte(raw))
			code = CodeMessageSchema
		} else {
			_, err = ParseEnvelope([]byte(raw))
		}
		wantCode(t, err, code)
	}
}

// What a client may send that the contract does not bound: the reference
// agent's session takes it.
func TestClientMessageAcceptsWhatTheContractAllows(t *testing.T) {
	ctx := make([]ContextEntry, 40)
	for i := range ctx {
		ctx[i] = ContextEntry{Description: strings.Repeat("d", 300), Value: strings.Repeat("v", 1000)}
	}
	for name, m := range map[string]*ClientMessage{
		"session.start, sessionId with space and non-ASCII": {Type: TypeSessionStart, SessionID: "kiosk 1 — hall"},
		"session.start, sessionId of 1000":                  {Type: TypeSessionStart, SessionID: strings.Repeat("s", 1000)},
		"user.turn of 40000 with 40 context entries":        {Type: TypeUserTurn, Turn: 1, Text: strings.Repeat("t", 40000), Context: ctx},
	} {
		t.Run(name, func(t *testing.T) {
			frame, err := MarshalClientMessage(m)
			if err != nil {
				t.Fatal(err)
			}
			if len(frame) > MaxFrameBytes {
				t.Fatalf("test message is %d bytes", len(frame))
			}
			s := NewSession(SessionConfig{})
			if m.Type != TypeSessionStart {
				if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s"}); err != nil {
					t.Fatal(err)
				}
				server(t, s, Event{Type: EventSessionEstablished})
			}
			got, err := ParseClientMessage(frame)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Client(got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestForLog(t *testing.T) {
	for in, want := range map[string]string{
		"turn-2-nfc":             "turn-2-nfc",
		"scan 1":                 `scan 1`,
		"a\nb\x1b[2J":            `a\nb\x1b[2J`,
		"é":                      `é`,
		"a\u202eb":               `a\u202eb`,
		`back\slash`:             `back\\slash`,
		strings.Repeat("x", 70):  strings.Repeat("x", 64) + "…",
		strings.Repeat("\n", 70): strings.Repeat(`\n`, 64) + "…",
		"\xff":                   `\xff`,
		strings.Repeat("é", 65):  strings.Repeat("é", 64) + "…",
	} {
		got := ForLog(in, 64)
		if strings.ContainsFunc(got, func(r rune) bool { return !unicode.IsGraphic(r) }) {
			t.Errorf("ForLog(%q) = %q: not all graphic", in, got)
		}
		if got != want {
			t.Errorf("ForLog(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShorten(t *testing.T) {
	if got, cut := Shorten("abc", 3); got != "abc" || cut {
		t.Errorf("Shorten(abc, 3) = %q, %v", got, cut)
	}
	if got, cut := Shorten("äöüß", 2); got != "äö…" || !cut {
		t.Errorf("Shorten(äöüß, 2) = %q, %v", got, cut)
	}
}

// The AgentCall params carry no length of acbridge's own: an AG-UI URL of
// 3,000 characters is a valid card (the 256 KiB card bound holds).
func TestCardAcceptsLongAGUIURL(t *testing.T) {
	card := publicCard(t, "public")
	agui := params(card)["agui"].(map[string]any)
	agui["url"] = "https://agent.example/" + strings.Repeat("a", 3000)
	c, err := ParseCard(mustJSON(t, card))
	if err != nil {
		t.Fatal(err)
	}
	if c.Params.AGUI.URL != agui["url"] {
		t.Fatalf("url %q", c.Params.AGUI.URL)
	}
}
