package agent

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// wire is one transport's side of a test session.
type wire interface {
	send(m *protocol.ClientMessage)
	expect(types ...string) []protocol.Envelope
}

// The reference agent takes every client input the contract allows, over
// both transports: a sessionId with spaces and non-ASCII of 1,000
// characters, a turn of 40,000 characters with 40 context entries, and
// objectRefs of RFC 8141/3986 shape and of any length, which it keeps
// apart by exact equality.
func TestReferenceAgentTakesWhatTheContractAllows(t *testing.T) {
	for _, transport := range []string{"websocket", "webrtc"} {
		t.Run(transport, func(t *testing.T) {
			var w wire
			if transport == "websocket" {
				w = dial(t, startAgent(t, nil))
			} else {
				w = connect(t, startRTC(t, nil), peerOptions{})
			}
			converse(t, w)
		})
	}
}

func converse(t *testing.T, w wire) {
	turn := int64(0)
	next := func() int64 { turn++; return turn }
	run := func(m *protocol.ClientMessage) string {
		t.Helper()
		w.send(m)
		return w.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text
	}
	say := func(text string, ctx ...protocol.ContextEntry) string {
		return run(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: next(), Text: text, Context: ctx})
	}
	scan := func(ref string) string {
		return run(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: next(), Observation: object(ref)})
	}

	w.send(&protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "kiosk 1 — hall ☃ " + strings.Repeat("s", 1000),
		ClientCapabilities: &protocol.ClientCapabilities{PhysicalObservations: &protocol.PhysicalCapabilities{Modalities: both}}})
	w.expect(protocol.EventSessionEstablished)

	ctx := make([]protocol.ContextEntry, 40)
	for i := range ctx {
		ctx[i] = protocol.ContextEntry{Description: strings.Repeat("d", 300), Value: strings.Repeat("v", 1000)}
	}
	check(t, say(strings.Repeat("long turn ", 4000), ctx...), textGeneric)

	wide := protocol.ObjectRefPrefix + "Shelf%2F3/box+1?=v=2#f"
	long := protocol.ObjectRefPrefix + strings.Repeat("n", 3000)
	check(t, scan(wide), textUnknownFirst)
	check(t, say("teach object Shelf"), "Proposed Shelf; confirm object to save for this session.")
	check(t, say("confirm object"), "Confirmed Shelf for this session.")
	check(t, scan("https://[2001:db8::1]:8443/r?x=1"), textUnknownMismatch)
	check(t, scan(long), textUnknownFirst)
	check(t, scan(long), textStillUnknown)
	check(t, scan(long[:len(long)-1]), textUnknownFirst) // a prefix is another object
	check(t, scan(wide), "This is Shelf.")
}
