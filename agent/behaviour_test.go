package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/protocol"
	"github.com/coder/websocket"
)

// Spec "Independent reference proof": teach, verify no stored association
// yet, confirm, rescan and receive the label.
func TestMemoryOnlyAfterConfirmation(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	a := ref("workshop-router")
	check(t, c.scan(a), "Unknown object; no association stored.")
	check(t, c.say("teach object Workshop router"), "Proposed Workshop router; confirm object to save for this session.")
	check(t, c.scan(a), "This object remains unknown.") // staged, not stored
	check(t, c.say("confirm object"), "Confirmed Workshop router for this session.")
	check(t, c.scan(a), "This is Workshop router.")
	// A second confirm has nothing left to store.
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	// Generic assent is not a confirmation.
	check(t, c.say("yes"), textGeneric)
}

// Exact objectRef equality only: a different reference, a prefix, an
// extension or a case variant of a stored one stays unknown.
func TestDifferentReferenceStaysUnknown(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	a := ref("workshop-router")
	c.scan(a)
	c.say("teach object Workshop router")
	c.say("confirm object")
	check(t, c.scan(ref("different-object")), "Unknown object; the prior reference's label does not match.")
	for _, r := range []string{ref("workshop-route"), ref("workshop-router2"), ref("Workshop-router"), ref("workshop-router.")} {
		if got := c.scan(r); strings.Contains(got, "Workshop router") {
			t.Errorf("%s matched the stored label: %q", r, got)
		}
	}
	check(t, c.scan(a), "This is Workshop router.")
}

func TestCancelTeaching(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	a := ref("a")
	c.scan(a)
	check(t, c.say("cancel teaching"), "No current proposal; nothing to cancel.")
	c.say("teach object Alpha")
	check(t, c.say("cancel teaching"), "Proposal cancelled.")
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(a), "This object remains unknown.")
	// Teaching again after a cancel needs its own confirmation.
	check(t, c.say("teach object Alpha"), "Proposal staged, not stored: Alpha.")
	check(t, c.say("confirm object"), "Confirmed Alpha for this session.")
	check(t, c.scan(a), "This is Alpha.")
}

func TestNewScanInvalidatesProposal(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	a, b := ref("a"), ref("b")
	c.scan(a)
	c.say("teach object Alpha")
	check(t, c.scan(b), "Unknown object; no association stored; previous proposal invalidated.")
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(a), "This other object still remains unknown.")

	// Rescanning the proposal's own object keeps it.
	c.say("teach object Alpha")
	check(t, c.scan(a), "This object remains unknown.")
	check(t, c.say("confirm object"), "Confirmed Alpha for this session.")

	// A replacement proposal for a known object is dropped by a switch too.
	c.say("teach object Alpha two")
	check(t, c.scan(b), "This other object still remains unknown; previous proposal invalidated.")
	check(t, c.scan(a), "This is Alpha.")

	// A user-collected scan of another object invalidates as well.
	c.say("teach object Alpha three")
	ev := c.request("scan an object")
	c.answer(ev.InteractionID, object(b))
	c.expect(protocol.EventInteractionResolved)
	check(t, c.expect(protocol.EventTextDelta)[0].Event.Text, "Received the user-collected observation; previous proposal invalidated.")
	c.expect(protocol.EventRunCompleted)
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(a), "This is Alpha.")
}

// Teaching needs a scanned object and a usable label.
func TestTeachRefusals(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	check(t, c.say("teach object Alpha"), "Scan an object first; nothing staged.")
	c.scan(ref("a"))
	check(t, c.say("teach object"), "Say teach object followed by a label; nothing staged.")
	check(t, c.say("teach object    "), "Say teach object followed by a label; nothing staged.")
	check(t, c.say("teach object two\nlines"), "A label is one line of plain text; nothing staged.")
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	// Command words are case-insensitive; the label keeps its case.
	check(t, c.say("  TEACH   Object   Mixed Case Label "), "Proposed Mixed Case Label; confirm object to save for this session.")
	check(t, c.say("Confirm Object"), "Confirmed Mixed Case Label for this session.")
}

func TestLabelLimits(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	c.scan(ref("long"))
	long := strings.Repeat("é", MaxLabelLen+1) // characters, not bytes
	check(t, c.say("teach object "+long), "That label is longer than 256 characters; nothing staged.")
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	exact := strings.Repeat("é", MaxLabelLen)
	c.say("teach object " + exact)
	check(t, c.say("confirm object"), "Confirmed "+exact+" for this session.")
	check(t, c.scan(ref("long")), "This is "+exact+".")

	for i := 2; i <= MaxLabels; i++ {
		c.scan(ref(fmt.Sprintf("obj-%d", i)))
		c.say(fmt.Sprintf("teach object Label %d", i))
		check(t, c.say("confirm object"), fmt.Sprintf("Confirmed Label %d for this session.", i))
	}
	// The 33rd label is refused politely and nothing is stored.
	extra := ref("obj-33")
	c.scan(extra)
	check(t, c.say("teach object Label 33"), "Session memory is full (32 labels); nothing staged.")
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(extra), "This object remains unknown.")
	// Relabelling a stored object does not grow memory and stays allowed.
	c.scan(ref("obj-2"))
	c.say("teach object Renamed")
	check(t, c.say("confirm object"), "Confirmed Renamed for this session.")
	check(t, c.scan(ref("obj-2")), "This is Renamed.")
	check(t, c.scan(ref("obj-32")), "This is Label 32.")
}

// Spec "Agent-requested collection": a valid response consumes the request
// exactly once; the answer belongs to the requesting run.
func TestInteractionSingleConsumption(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	ev := c.request("scan an object")
	want := fmt.Sprintf("turn-%d-nfc", c.turn)
	if ev.InteractionID != want || ev.Kind != protocol.KindNFCScan || ev.Prompt != "Tap to collect." || ev.SpokenPrompt != "Tap to collect." || ev.AllowsFreeform {
		t.Fatalf("request %+v", ev)
	}
	c.answer(want, object(ref("a")))
	res := c.expect(protocol.EventInteractionResolved, protocol.EventTextDelta, protocol.EventRunCompleted)
	if res[0].Event.InteractionID != want || res[0].Event.Outcome != protocol.OutcomeAnswered {
		t.Fatalf("resolved %+v", res[0].Event)
	}
	check(t, res[1].Event.Text, "Received the user-collected observation.")
	// The same answer again is stale: failure, nothing else.
	c.answer(want, object(ref("a")))
	c.expectFailure(protocol.CodeInteractionUnmatched)
	// The collected object became the current one; nothing was stored.
	check(t, c.scan(ref("a")), "This object remains unknown.")

	photo := c.request("take a photo")
	check(t, photo.InteractionID, fmt.Sprintf("turn-%d-photo", c.turn))
	if photo.Kind != protocol.KindPhotoCapture {
		t.Fatalf("kind %s", photo.Kind)
	}
	c.answer(photo.InteractionID, photoObs(t))
	c.expect(protocol.EventInteractionResolved, protocol.EventTextDelta, protocol.EventRunCompleted)
	c.answer(photo.InteractionID, photoObs(t))
	c.expectFailure(protocol.CodeInteractionUnmatched)
}

func TestWrongModalityAndUnmatchedAnswers(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	ev := c.request("take a photo")
	c.answer(ev.InteractionID, object(ref("a")))
	c.expectFailure(protocol.CodeInteractionModality)
	c.answer("turn-99-photo", photoObs(t))
	c.expectFailure(protocol.CodeInteractionUnmatched)
	// An unrelated scan without the pending id cannot satisfy it.
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: object(ref("a"))})
	c.expectFailure(protocol.CodeRunActive)
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: c.nextTurn(), Text: "hello"})
	c.expectFailure(protocol.CodeRunActive)
	// None of that touched the request or the memory: the right answer
	// still resolves it, and "a" was never scanned.
	c.answer(ev.InteractionID, photoObs(t))
	res := c.expect(protocol.EventInteractionResolved, protocol.EventTextDelta, protocol.EventRunCompleted)
	if res[0].Event.InteractionID != ev.InteractionID || res[0].Event.Outcome != protocol.OutcomeAnswered {
		t.Fatalf("resolved %+v", res[0].Event)
	}
	check(t, c.scan(ref("a")), "Unknown object; no association stored.")
}

func TestResponseCancel(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	ev := c.request("scan an object")
	c.send(&protocol.ClientMessage{Type: protocol.TypeResponseCancel})
	res := c.expect(protocol.EventInteractionResolved, protocol.EventRunCompleted)
	if res[0].Event.InteractionID != ev.InteractionID || res[0].Event.Outcome != protocol.OutcomeCancelled {
		t.Fatalf("resolved %+v", res[0].Event)
	}
	// A late answer to the cancelled request is rejected.
	c.answer(ev.InteractionID, object(ref("a")))
	c.expectFailure(protocol.CodeInteractionUnmatched)

	// Without an active run there is nothing to answer; the next run
	// follows at the next sequence (expect checks it).
	c.send(&protocol.ClientMessage{Type: protocol.TypeResponseCancel})
	// response.cancel also cancels a staged proposal (spec "Session and input").
	c.scan(ref("a"))
	c.say("teach object Alpha")
	c.send(&protocol.ClientMessage{Type: protocol.TypeResponseCancel})
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(ref("a")), "This object remains unknown.")
}

// A request is issued only for negotiated ∩ agentRequests.
func TestRequestOnlyForRequestableModality(t *testing.T) {
	t.Run("client offers nfc only", func(t *testing.T) {
		c := startSession(t, startAgent(t, nil), protocol.NFC)
		check(t, c.say("take a photo"), "I can't ask for a photo in this session.")
		c.request("scan an object")
	})
	t.Run("no client capabilities", func(t *testing.T) {
		c := startSession(t, startAgent(t, nil))
		check(t, c.say("scan an object"), "I can't ask for an NFC scan in this session.")
		check(t, c.say("take a photo"), "I can't ask for a photo in this session.")
		c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: object(ref("a"))})
		c.expectFailure(protocol.CodeObservationNegotiation)
	})
	t.Run("card requests nfc only", func(t *testing.T) {
		ta := startAgent(t, &Options{AgentRequests: []protocol.Modality{protocol.NFC}})
		c := startSession(t, ta, both...)
		check(t, c.say("take a photo"), "I can't ask for a photo in this session.")
		// Still accepted when the user initiates it.
		c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: photoObs(t)})
		check(t, c.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text, "Received the photo; nothing stored.")
	})
}

// Spec "Security ...": enforce agent/user storage isolation; memory is
// session-local and gone after session.end.
func TestSessionsAreIsolated(t *testing.T) {
	ta := startAgent(t, nil)
	one := startSession(t, ta, both...)
	two := startSession(t, ta, both...)
	one.scan(ref("a"))
	one.say("teach object Alpha")
	one.say("confirm object")
	check(t, two.scan(ref("a")), "Unknown object; no association stored.")
	check(t, one.scan(ref("a")), "This is Alpha.")

	one.send(&protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	one.expectClose(websocket.StatusNormalClosure)
	three := startSession(t, ta, both...)
	check(t, three.scan(ref("a")), "Unknown object; no association stored.")
}

// session.end cancels pending work and closes the session normally.
func TestSessionEndWithPendingRequest(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	c.request("take a photo")
	c.send(&protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	c.expectClose(websocket.StatusNormalClosure)
}
