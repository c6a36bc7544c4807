package bridge

import (
	"testing"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/protocol"
)

// Which press is allowed in which state, and what the person is told:
// judged without a session, an agent or a goroutine.
func TestJudgePress(t *testing.T) {
	both := []protocol.Modality{protocol.NFC, protocol.Photo}
	press := func(c string) button.Event { return button.Event{Control: c, Pressed: true} }
	long := func(c string) button.Event { return button.Event{Control: c, Pressed: true, Long: true} }
	for _, tc := range []struct {
		name          string
		st            pressState
		ev            button.Event
		want          pressAction
		collecting    string // the next state's
		word          string
		interactionID string
		refusal       string
		unavailable   bool
	}{
		{name: "scan starts a scan", st: pressState{negotiated: both}, ev: press(button.Scan), want: pressCollect, collecting: button.Scan, word: "scan"},
		{name: "photo starts a photo", st: pressState{negotiated: both}, ev: press(button.Photo), want: pressCollect, collecting: button.Photo, word: "photo"},
		{name: "ended session refuses as not connected", st: pressState{ended: true, negotiated: both}, ev: press(button.Scan), want: pressNotLive},
		{name: "a release does nothing", st: pressState{negotiated: both}, ev: button.Event{Control: button.Scan}, want: pressNothing},
		{name: "a long scan does nothing", st: pressState{negotiated: both}, ev: long(button.Scan), want: pressNothing},
		{name: "an unknown control does nothing", st: pressState{negotiated: both}, ev: press("volume"), want: pressNothing},
		{name: "long cancel cancels", st: pressState{negotiated: both, collecting: button.Scan}, ev: long(button.Cancel), want: pressCancel, collecting: button.Scan},
		{name: "short cancel does nothing", st: pressState{negotiated: both}, ev: press(button.Cancel), want: pressNothing},
		{name: "talk goes to the voice turn", st: pressState{negotiated: both}, ev: press(button.Talk), want: pressTalk},
		{name: "photo not negotiated is refused with why", st: pressState{negotiated: []protocol.Modality{protocol.NFC}}, ev: press(button.Photo), want: pressRefuse, word: "photo", unavailable: true},
		{name: "a second collection waits for none", st: pressState{negotiated: both, collecting: button.Scan}, ev: press(button.Photo), want: pressBusyCollect, collecting: button.Scan, word: "photo"},
		{name: "scan while the reader waits extends its window", st: pressState{negotiated: both, collecting: button.Scan}, ev: press(button.Scan), want: pressExtend, collecting: button.Scan, word: "scan"},
		{name: "scan while a photo is taken waits for none", st: pressState{negotiated: both, collecting: button.Photo}, ev: press(button.Scan), want: pressBusyCollect, collecting: button.Photo, word: "scan"},
		{name: "scan answers the agent's scan request", st: pressState{negotiated: both, pending: true, pendingMod: protocol.NFC, pendingID: "i-1", agentActive: true}, ev: press(button.Scan), want: pressCollect, collecting: button.Scan, word: "scan", interactionID: "i-1"},
		{name: "photo never answers a scan request", st: pressState{negotiated: both, pending: true, pendingMod: protocol.NFC, pendingID: "i-1"}, ev: press(button.Photo), want: pressRefuse, word: "photo", refusal: "the agent asked for a tag scan: press SCAN"},
		{name: "no press while the agent answers", st: pressState{negotiated: both, agentActive: true}, ev: press(button.Photo), want: pressRefuse, word: "photo", refusal: "the agent is still answering; press again when it is done"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, out := judgePress(tc.st, tc.ev)
			if out.action != tc.want {
				t.Fatalf("action %d, want %d", out.action, tc.want)
			}
			if next.collecting != tc.collecting {
				t.Errorf("collecting %q after, want %q", next.collecting, tc.collecting)
			}
			if out.kind.word != tc.word {
				t.Errorf("kind %q, want %q", out.kind.word, tc.word)
			}
			if out.interactionID != tc.interactionID || out.refusal != tc.refusal || out.unavailable != tc.unavailable {
				t.Errorf("got id %q refusal %q unavailable %v, want %q %q %v", out.interactionID, out.refusal, out.unavailable, tc.interactionID, tc.refusal, tc.unavailable)
			}
		})
	}
}

// Every control that collects maps to one modality and back, so a prompt's
// control and a press's modality cannot disagree.
func TestCollectionKindsRoundTrip(t *testing.T) {
	for _, k := range collectionKinds {
		c, ok := kindOfControl(k.control)
		if !ok || c != k || kindOfModality(k.mod) != k {
			t.Errorf("%s: control and modality do not map back to one kind", k.word)
		}
	}
}
