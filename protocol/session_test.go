package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

var bothModalities = []Modality{NFC, Photo}

func started(t *testing.T, cfg SessionConfig, mods ...Modality) *Session {
	t.Helper()
	s := NewSession(cfg)
	caps := &ClientCapabilities{PhysicalObservations: &PhysicalCapabilities{Modalities: mods}}
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s", ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventSessionEstablished})
	return s
}

func server(t *testing.T, s *Session, evs ...Event) {
	t.Helper()
	for _, ev := range evs {
		if err := s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: ev}); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
	}
}

func objectObs() *Observation {
	return &Observation{SchemaVersion: "0.1", ObservationID: "scan-1", CapturedAt: "2026-01-01T00:00:00Z", Intent: "identify",
		Object: &Object{ObjectRef: "urn:agentcall:object:x", Carrier: CarrierLocalTag, Assurance: AssuranceUnverified, PayloadSHA256: strings.Repeat("0", 64)}}
}

func TestSessionWalkthroughFixture(t *testing.T) {
	s := NewSession(SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities})
	for i, st := range fixtures(t).Walkthrough {
		var err error
		if st.Direction == "client" {
			var m *ClientMessage
			if m, err = ParseClientMessage(st.Message); err == nil {
				err = s.Client(m)
			}
		} else {
			var env *Envelope
			if env, err = ParseEnvelope(st.Message); err == nil {
				err = s.Server(env)
			}
		}
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	if !s.Ended() {
		t.Error("session.end not applied")
	}
}

func TestSessionOrderRules(t *testing.T) {
	cfg := SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}
	s := NewSession(cfg)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "hi"}), CodeSessionOrder)
	wantCode(t, s.Server(&Envelope{Sequence: 1, Event: Event{Type: EventSessionEstablished}}), CodeSessionOrder)

	s = started(t, cfg, NFC)
	if got := s.Negotiated(); len(got) != 1 || got[0] != NFC {
		t.Fatalf("negotiated %v", got)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "again"}), CodeSessionOrder)
	// Sequence repeat and decrease (gaps: TestSessionSequenceGaps).
	wantCode(t, s.Server(&Envelope{Sequence: 1, Event: Event{Type: EventRunStarted}}), CodeSequenceOrder)
	wantCode(t, s.Server(&Envelope{Sequence: 0, Event: Event{Type: EventRunStarted}}), CodeSequenceOrder)
	// Ack of the future.
	wantCode(t, s.Client(&ClientMessage{Type: TypeAck, Sequence: 2}), CodeSequenceOrder)
	// Turns.
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 5, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 6, Text: "again"}), CodeRunActive)
	server(t, s, Event{Type: EventRunStarted}, Event{Type: EventTextDelta, Text: "x"}, Event{Type: EventRunCompleted})
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 5, Text: "replay"}), CodeTurnOrder)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 4, Observation: objectObs()}), CodeTurnOrder)
	// A rejected message changes nothing: turn 6 is still next.
	if s.LastTurn() != 5 || s.Busy() {
		t.Fatalf("state changed by rejections: turn %d busy %v", s.LastTurn(), s.Busy())
	}
	// Run events out of a run.
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventTextDelta, Text: "x"}}), CodeRunOrder)
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventRunCompleted}}), CodeRunOrder)
	// A failure outside a run answers the awaited turn.
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 6, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventFailure, Code: "x", Message: "y"})
	if s.Busy() {
		t.Error("failure outside a run left the session busy")
	}
	// Unknown event types only advance the sequence.
	server(t, s, Event{Type: "vendor.thing"})
	if err := s.Client(&ClientMessage{Type: TypeSessionEnd}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 9, Text: "hi"}), CodeSessionOrder)
}

func TestSessionInteractions(t *testing.T) {
	cfg := SessionConfig{Accepted: bothModalities, AgentRequests: []Modality{NFC}}
	s := started(t, cfg, NFC, Photo)
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "take a photo"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted})
	// photo is not in agentRequests.
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionRequested, InteractionID: "p", Kind: KindPhotoCapture}}), CodeInteractionForbidden)
	server(t, s, Event{Type: EventInteractionRequested, InteractionID: "turn-1-nfc", Kind: KindNFCScan})
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionRequested, InteractionID: "two", Kind: KindNFCScan}}), CodeInteractionPending)

	// An unrelated scan cannot satisfy it, nor can a wrong id or modality.
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, Observation: objectObs()}), CodeRunActive)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, InteractionID: "turn-9-nfc", Observation: objectObs()}), CodeInteractionUnmatched)
	photo := objectObs()
	photo.Object, photo.Image = nil, imageOf(makeJPEG(t, 4, 4), 4, 4)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, InteractionID: "turn-1-nfc", Observation: photo}), CodeInteractionModality)
	// Resolution before the answer is refused.
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionResolved, InteractionID: "turn-1-nfc", Outcome: OutcomeAnswered}}), CodeInteractionUnmatched)
	if err := s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, InteractionID: "turn-1-nfc", Observation: objectObs()}); err != nil {
		t.Fatal(err)
	}
	// Single consumption.
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 3, InteractionID: "turn-1-nfc", Observation: objectObs()}), CodeInteractionUnmatched)
	server(t, s, Event{Type: EventInteractionResolved, InteractionID: "turn-1-nfc", Outcome: OutcomeAnswered}, Event{Type: EventRunCompleted})
	// Stale after resolution.
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 3, InteractionID: "turn-1-nfc", Observation: objectObs()}), CodeInteractionUnmatched)

	// Cancel path.
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 3, Text: "scan"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted}, Event{Type: EventInteractionRequested, InteractionID: "turn-3-nfc", Kind: KindNFCScan})
	if err := s.Client(&ClientMessage{Type: TypeResponseCancel}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventInteractionResolved, InteractionID: "turn-3-nfc", Outcome: OutcomeCancelled}, Event{Type: EventRunCompleted})
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 4, InteractionID: "turn-3-nfc", Observation: objectObs()}), CodeInteractionUnmatched)
}

// The contract sets no run for a request: one may come outside a run, stay
// pending while runs complete and others start, and be answered whatever
// the run state. One pending request and single consumption still hold.
func TestSessionRequestAcrossRuns(t *testing.T) {
	cfg := SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}
	s := started(t, cfg, NFC, Photo)
	// Outside any run, with nothing asked.
	server(t, s, Event{Type: EventInteractionRequested, InteractionID: "r1", Kind: KindNFCScan})
	if p, ok := s.Pending(); !ok || p.ID != "r1" || s.Busy() {
		t.Fatalf("request outside a run: pending %v %v, busy %v", p, ok, s.Busy())
	}
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionRequested, InteractionID: "r2", Kind: KindNFCScan}}), CodeInteractionPending)
	// A turn, and its run completing over the pending request.
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "what now?"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted}, Event{Type: EventTextDelta, Text: "scan it"}, Event{Type: EventRunCompleted})
	if _, ok := s.Pending(); !ok || s.Busy() {
		t.Fatalf("after run.completed: pending %v, busy %v", ok, s.Busy())
	}
	// Answered with no run active; then the agent resolves it and answers
	// in a run of its own, which the answer solicited.
	if err := s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, InteractionID: "r1", Observation: objectObs()}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventInteractionResolved, InteractionID: "r1", Outcome: OutcomeAnswered},
		Event{Type: EventRunStarted}, Event{Type: EventTextDelta, Text: "thanks"}, Event{Type: EventRunCompleted})
	if n := s.UnsolicitedRuns(); n != 0 {
		t.Errorf("%d unsolicited runs; the run answered the scan", n)
	}
	// Requested in a run, answered while a later turn's run is active.
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 3, Text: "scan"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted}, Event{Type: EventInteractionRequested, InteractionID: "r3", Kind: KindPhotoCapture}, Event{Type: EventRunCompleted})
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 4, Text: "meanwhile"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted})
	photo := objectObs()
	photo.Object, photo.Image = nil, imageOf(makeJPEG(t, 4, 4), 4, 4)
	if err := s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 5, InteractionID: "r3", Observation: photo}); err != nil {
		t.Fatalf("answer during another run: %v", err)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 6, InteractionID: "r3", Observation: photo}), CodeInteractionUnmatched)
	server(t, s, Event{Type: EventInteractionResolved, InteractionID: "r3", Outcome: OutcomeAnswered}, Event{Type: EventRunCompleted})
	// What the contract does set still holds.
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventRunCompleted}}), CodeRunOrder)
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventTextDelta, Text: "x"}}), CodeRunOrder)
	server(t, s, Event{Type: EventRunStarted})
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventRunStarted}}), CodeRunOrder)
}

// A run is the person's when a turn, an observation (new or answering), a
// committed audio turn or an open microphone asked for it, or when it
// greets right after session.established; any other is counted, not
// refused.
func TestSessionUnsolicitedRuns(t *testing.T) {
	cfg := SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities, ExplicitTurns: true}
	s := NewSession(cfg)
	caps := &ClientCapabilities{PhysicalObservations: &PhysicalCapabilities{Modalities: bothModalities}, AudioTurnControl: &AudioTurnControl{Mode: "explicit"}}
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s", ClientCapabilities: caps}); err != nil {
		t.Fatal(err)
	}
	run := []Event{{Type: EventRunStarted}, {Type: EventTextDelta, Text: "x"}, {Type: EventRunCompleted}}
	want := func(n int64, unsolicited bool, what string) {
		t.Helper()
		if s.UnsolicitedRuns() != n || s.RunUnsolicited() != unsolicited {
			t.Errorf("%s: %d unsolicited (last %v), want %d (%v)", what, s.UnsolicitedRuns(), s.RunUnsolicited(), n, unsolicited)
		}
	}
	server(t, s, Event{Type: EventSessionEstablished})
	server(t, s, run...)
	want(0, false, "a greeting")
	server(t, s, run...)
	want(1, true, "a second run with no turn")
	server(t, s, run...)
	want(2, true, "a third")
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "hi"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, run...)
	want(2, false, "a turn's run")
	server(t, s, run...)
	want(3, true, "a second run for one turn")
	if err := s.Client(&ClientMessage{Type: TypeUserObservation, Turn: 2, Observation: objectObs()}); err != nil {
		t.Fatal(err)
	}
	server(t, s, run...)
	want(3, false, "an observation's run")
	for _, m := range []ClientMessage{{Type: TypeAudioTurnStart, Turn: 3}, {Type: TypeAudioTurnCommit, Turn: 3}} {
		if err := s.Client(&m); err != nil {
			t.Fatal(err)
		}
	}
	server(t, s, run...)
	want(3, false, "a committed audio turn's run")
	// A cancelled audio turn asks for nothing.
	for _, m := range []ClientMessage{{Type: TypeAudioTurnStart, Turn: 4}, {Type: TypeAudioTurnCancel, Turn: 4}} {
		if err := s.Client(&m); err != nil {
			t.Fatal(err)
		}
	}
	server(t, s, run...)
	want(4, true, "a run after a cancelled audio turn")
	// An open microphone: every run answers the person, and one more
	// after it closes.
	s.Listening(true)
	server(t, s, run...)
	server(t, s, run...)
	want(4, false, "runs while listening")
	s.Listening(false)
	server(t, s, run...)
	want(4, false, "the run answering the end of an engagement")
	server(t, s, run...)
	want(5, true, "a run after it")
	// The count is not a refusal: text in an unsolicited run is accepted.
	if s.Busy() {
		t.Error("busy after the runs completed")
	}
}

func TestSessionRequestNeedsNegotiation(t *testing.T) {
	s := started(t, SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}, NFC)
	if err := s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 1, Text: "take a photo"}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted})
	wantCode(t, s.Server(&Envelope{Sequence: s.LastSequence() + 1, Event: Event{Type: EventInteractionRequested, InteractionID: "p", Kind: KindPhotoCapture}}), CodeInteractionForbidden)
}

func TestSessionAudioTurns(t *testing.T) {
	explicit := &ClientCapabilities{AudioTurnControl: &AudioTurnControl{Mode: "explicit"}}
	// Not permitted by the card: the offer grants nothing.
	s := NewSession(SessionConfig{})
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s", ClientCapabilities: explicit}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeAudioTurnStart, Turn: 1}), CodeAudioTurn)

	s = NewSession(SessionConfig{ExplicitTurns: true})
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s", ClientCapabilities: explicit}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventSessionEstablished})
	if err := s.Client(&ClientMessage{Type: TypeAudioTurnStart, Turn: 1}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Client(&ClientMessage{Type: TypeAudioTurnStart, Turn: 2}), CodeAudioTurn)
	wantCode(t, s.Client(&ClientMessage{Type: TypeUserTurn, Turn: 2, Text: "x"}), CodeAudioTurn)
	wantCode(t, s.Client(&ClientMessage{Type: TypeAudioTurnCommit, Turn: 2}), CodeAudioTurn)
	if err := s.Client(&ClientMessage{Type: TypeAudioTurnCommit, Turn: 1}); err != nil {
		t.Fatal(err)
	}
	server(t, s, Event{Type: EventRunStarted}, Event{Type: EventRunCompleted})
	wantCode(t, s.Client(&ClientMessage{Type: TypeAudioTurnStart, Turn: 1}), CodeTurnOrder)
	if err := s.Client(&ClientMessage{Type: TypeAudioTurnStart, Turn: 2}); err != nil {
		t.Fatal(err)
	}
	if err := s.Client(&ClientMessage{Type: TypeAudioTurnCancel, Turn: 2}); err != nil {
		t.Fatal(err)
	}
	if s.Busy() || s.AudioTurn() != 0 {
		t.Error("cancelled audio turn left state behind")
	}
}

func TestMarshalClientMessageChecks(t *testing.T) {
	b, err := MarshalClientMessage(&ClientMessage{Type: TypeUserObservation, Turn: 1, Observation: objectObs()})
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(b, &back); err != nil || back["type"] != TypeUserObservation {
		t.Fatalf("%s %v", b, err)
	}
	bad := objectObs()
	bad.Object.ObjectRef = "javascript:x()"
	_, err = MarshalClientMessage(&ClientMessage{Type: TypeUserObservation, Turn: 1, Observation: bad})
	wantCode(t, err, CodeObservationSchema)
}

// Spec "Session and input": session.established is sequence 1 and each
// subsequent envelope has a strictly increasing positive sequence, so an
// agent sending 1, 3, 5 conforms; a repeat or a decrease does not.
func TestSessionSequenceGaps(t *testing.T) {
	cfg := SessionConfig{Accepted: bothModalities, AgentRequests: bothModalities}
	s := NewSession(cfg)
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Server(&Envelope{Sequence: 2, Event: Event{Type: EventSessionEstablished}}), CodeSequenceOrder)
	for _, env := range []Envelope{
		{Sequence: 1, Event: Event{Type: EventSessionEstablished}},
		{Sequence: 3, Event: Event{Type: EventRunStarted}},
		{Sequence: 5, Event: Event{Type: EventTextDelta, Text: "x"}},
		{Sequence: 1 << 40, Event: Event{Type: EventRunCompleted}},
	} {
		if err := s.Server(&env); err != nil {
			t.Fatalf("sequence %d after %d: %v", env.Sequence, s.LastSequence(), err)
		}
	}
	if err := s.Client(&ClientMessage{Type: TypeAck, Sequence: 1 << 40}); err != nil {
		t.Fatalf("ack of the last sequence: %v", err)
	}
	for _, seq := range []int64{1 << 40, 7} {
		wantCode(t, s.Server(&Envelope{Sequence: seq, Event: Event{Type: EventRunStarted}}), CodeSequenceOrder)
	}
	if s.RunActive() || s.LastSequence() != 1<<40 {
		t.Fatal("a refused envelope changed the state")
	}
}

// acbridge never asks to resume, so session.established resumed:true is a
// protocol error.
func TestSessionResumedRefused(t *testing.T) {
	s := NewSession(SessionConfig{})
	if err := s.Client(&ClientMessage{Type: TypeSessionStart, SessionID: "s"}); err != nil {
		t.Fatal(err)
	}
	wantCode(t, s.Server(&Envelope{Sequence: 1, Event: Event{Type: EventSessionEstablished, Resumed: true}}), CodeSessionResumed)
	if s.Established() {
		t.Fatal("a refused session.established changed the state")
	}
}

// Every code the package defines is known, so metrics never fold one into
// "other" (image.base64 and frame.utf8 were missing).
func TestKnownCodes(t *testing.T) {
	for _, c := range []string{CodeImageBase64, CodeFrameUTF8, CodeCardSession, CodeSessionResumed, CodePassportSchema, CodeImageSize} {
		if !KnownCode(c) {
			t.Errorf("%s is not a known code", c)
		}
	}
	if KnownCode("NOT A VALID CODE") {
		t.Error("an unknown code is known")
	}
}
