package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// teachState leaves c with "a" stored as Alpha, "b" current and a proposal
// Beta staged for it: every piece of memory a bad message could disturb.
func teachState(c *client) {
	c.scan(ref("a"))
	c.say("teach object Alpha")
	c.say("confirm object")
	c.scan(ref("b"))
	c.say("teach object Beta")
}

// proveUnchanged shows, with follow-up turns, that the state teachState
// built is intact: "b" is still current with its proposal, "a" still
// known, "c" never scanned.
func proveUnchanged(t *testing.T, c *client) {
	t.Helper()
	check(t, c.scan(ref("b")), "This object remains unknown.")
	check(t, c.say("confirm object"), "Confirmed Beta for this session.")
	check(t, c.scan(ref("a")), "This is Alpha.")
	check(t, c.scan(ref("c")), "Unknown object; the prior reference's label does not match.")
}

// mutateImage returns the trace's photo observation with f applied.
func mutateImage(t *testing.T, f func(*protocol.Image)) *protocol.Observation {
	obs := *photoObs(t)
	img := *obs.Image
	f(&img)
	obs.Image = &img
	return &obs
}

func observationMsg(turn int64, obs any) map[string]any {
	return map[string]any{"type": "user.observation", "turn": turn, "observation": obs}
}

// Every class of invalid input gets a failure with its code and changes
// nothing: no memory, no turn consumed, no proposal touched.
func TestInvalidInputChangesNothing(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	teachState(c)

	notJPEG := []byte("this is not a JPEG at all")
	sum := sha256.Sum256(notJPEG)
	badObject := object(ref("c"))
	badObject.Intent = "execute"

	cases := []struct {
		name string
		msg  any // sent as JSON
		raw  string
		code string
	}{
		{name: "not JSON", raw: "teach object Evil", code: protocol.CodeFrameJSON},
		{name: "unknown type", msg: map[string]any{"type": "user.command", "text": "confirm object"}, code: protocol.CodeMessageSchema},
		{name: "turn without text", msg: map[string]any{"type": "user.turn", "turn": c.turn + 1}, code: protocol.CodeMessageSchema},
		{name: "observation schema", msg: observationMsg(c.turn+1, badObject), code: protocol.CodeObservationSchema},
		{name: "objectRef scheme", msg: observationMsg(c.turn+1, object("http://evil.example/c")), code: protocol.CodeObservationSchema},
		{name: "image base64", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) { i.DataBase64 = "!" + i.DataBase64[1:] })), code: protocol.CodeImageBase64},
		{name: "image integrity", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) { i.SHA256 = strings.Repeat("ab", 32) })), code: protocol.CodeImageIntegrity},
		{name: "image byteCount", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) { i.ByteCount++ })), code: protocol.CodeImageIntegrity},
		{name: "image jpeg", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) {
			i.DataBase64, i.ByteCount, i.SHA256 = base64.StdEncoding.EncodeToString(notJPEG), len(notJPEG), hex.EncodeToString(sum[:])
		})), code: protocol.CodeImageJPEG},
		{name: "image dimensions", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) { i.PixelWidth = 3 })), code: protocol.CodeImageDimensions},
		// Over 61,440 bytes: the schema bounds the encoded length first.
		{name: "image too large", msg: observationMsg(c.turn+1, mutateImage(t, func(i *protocol.Image) {
			i.DataBase64 = strings.Repeat("A", base64.StdEncoding.EncodedLen(protocol.MaxImageBytes)+4)
		})), code: protocol.CodeObservationSchema},
		{name: "duplicate turn", msg: map[string]any{"type": "user.turn", "turn": c.turn, "text": "teach object Evil"}, code: protocol.CodeTurnOrder},
		{name: "replayed turn", msg: map[string]any{"type": "user.turn", "turn": 1, "text": "confirm object"}, code: protocol.CodeTurnOrder},
		{name: "replayed scan", msg: observationMsg(1, object(ref("c"))), code: protocol.CodeTurnOrder},
		{name: "answer without request", msg: map[string]any{"type": "user.observation", "turn": c.turn + 1, "interactionId": "turn-1-nfc", "observation": object(ref("c"))}, code: protocol.CodeInteractionUnmatched},
		{name: "second session.start", msg: map[string]any{"type": "session.start", "sessionId": "again"}, code: protocol.CodeSessionOrder},
		{name: "ack of unsent sequence", msg: map[string]any{"type": "ack", "sequence": 1 << 40}, code: protocol.CodeSequenceOrder},
		{name: "audio turn on websocket", msg: map[string]any{"type": "audio.turn.start", "turn": c.turn + 1}, code: protocol.CodeAudioTurn},
	}
	for _, tc := range cases {
		if tc.raw != "" {
			c.writeRaw(websocket.MessageText, []byte(tc.raw))
		} else {
			c.sendJSON(tc.msg)
		}
		ev := c.expect(protocol.EventFailure)[0].Event
		if ev.Code != tc.code {
			t.Errorf("%s: code %s (%s), want %s", tc.name, ev.Code, ev.Message, tc.code)
		}
		if strings.Contains(ev.Message, "Evil") || strings.Contains(ev.Message, "/9j/") {
			t.Errorf("%s: failure echoes input: %q", tc.name, ev.Message)
		}
	}
	proveUnchanged(t, c)
}

// Negotiation: an observation outside the negotiated set is refused
// before anything looks at it.
func TestNegotiationFailureChangesNothing(t *testing.T) {
	c := startSession(t, startAgent(t, &Options{Accepted: []protocol.Modality{protocol.NFC}, AgentRequests: []protocol.Modality{protocol.NFC}}), both...)
	teachState(c)
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: photoObs(t)})
	c.expectFailure(protocol.CodeObservationNegotiation)
	combined := photoObs(t)
	combined.Object = object(ref("c")).Object
	c.sendJSON(observationMsg(c.turn+1, combined))
	c.expectFailure(protocol.CodeObservationNegotiation)
	check(t, c.say("take a photo"), "I can't ask for a photo in this session.")
	proveUnchanged(t, c)
}

// The first message must be session.start; without a session the failure
// is sequence 1 and the connection ends.
func TestFirstMessageMustBeSessionStart(t *testing.T) {
	ta := startAgent(t, nil)
	for _, first := range []any{
		map[string]any{"type": "user.turn", "turn": 1, "text": "hello"},
		observationMsg(1, object(ref("a"))),
		map[string]any{"type": "ack", "sequence": 1},
		map[string]any{"type": "session.start"}, // no sessionId
	} {
		c := dial(t, ta)
		c.sendJSON(first)
		env := c.next()
		if env.Sequence != 1 || env.Event.Type != protocol.EventFailure {
			t.Fatalf("%v: got %+v", first, env)
		}
		if env.Event.Code != protocol.CodeSessionOrder && env.Event.Code != protocol.CodeMessageSchema {
			t.Errorf("%v: code %s", first, env.Event.Code)
		}
		c.expectClose(websocket.StatusPolicyViolation)
	}
	c := dial(t, ta)
	c.sendJSON(map[string]any{"type": "user.turn", "turn": 1, "text": "hello"})
	c.expectFailure(protocol.CodeSessionOrder)
}

// Frame rules (spec "WebSocket and WebRTC"): checked before parsing, then a
// failure and a close naming the rule.
func TestFrameViolationsCloseTheConnection(t *testing.T) {
	ta := startAgent(t, nil)
	oversized := bytes.Repeat([]byte("a"), protocol.MaxFrameBytes+1) // 131,073 bytes
	badUTF8 := []byte(`{"type":"user.turn","turn":1,"text":"` + "\xff\xfe" + `"}`)
	cases := []struct {
		name   string
		typ    websocket.MessageType
		frame  []byte
		code   string
		status websocket.StatusCode
	}{
		{"131,073-byte frame", websocket.MessageText, oversized, protocol.CodeFrameSize, websocket.StatusMessageTooBig},
		{"binary frame", websocket.MessageBinary, []byte(`{"type":"ack","sequence":1}`), protocol.CodeFrameBinary, websocket.StatusUnsupportedData},
		{"bad UTF-8", websocket.MessageText, badUTF8, protocol.CodeFrameUTF8, websocket.StatusInvalidFramePayloadData},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := startSession(t, ta, both...)
			c.writeRaw(tc.typ, tc.frame)
			c.expectFailure(tc.code)
			c.expectClose(tc.status)
		})
		t.Run(tc.name+" before session.start", func(t *testing.T) {
			c := dial(t, ta)
			c.writeRaw(tc.typ, tc.frame)
			env := c.next()
			if env.Sequence != 1 || env.Event.Code != tc.code {
				t.Fatalf("got %+v", env)
			}
			c.expectClose(tc.status)
		})
	}
}

// A frame of exactly 131,072 bytes is within the bound; unknown fields are
// tolerated and grant nothing.
func TestFrameAtTheBoundIsAccepted(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	head := `{"type":"ack","sequence":1,"grant":"`
	tail := `"}`
	frame := head + strings.Repeat("x", protocol.MaxFrameBytes-len(head)-len(tail)) + tail
	if len(frame) != protocol.MaxFrameBytes {
		t.Fatalf("frame is %d bytes", len(frame))
	}
	c.writeRaw(websocket.MessageText, []byte(frame))
	// ack needs no answer: the next envelope is the next run's, in sequence.
	check(t, c.scan(ref("a")), "Unknown object; no association stored.")
	var m map[string]any
	if err := json.Unmarshal([]byte(frame), &m); err != nil {
		t.Fatal(err)
	}
}
