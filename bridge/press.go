package bridge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// collectionKind is one kind of collection a press starts. It is the one
// place where a control, its modality and the word for it ("scan",
// "photo": observation IDs, metrics, logs and notices) are tied together.
type collectionKind struct {
	control string
	mod     protocol.Modality
	word    string // scan-<n>, the metrics' kind label, "scan cancelled"
	sent    string // the notice once its observation left
}

var collectionKinds = []collectionKind{
	{control: button.Scan, mod: protocol.NFC, word: "scan", sent: "tag sent"},
	{control: button.Photo, mod: protocol.Photo, word: "photo", sent: "photo sent"},
}

// kindOfControl is the collection a control starts; ok false for a control
// that starts none (CANCEL, TALK).
func kindOfControl(control string) (collectionKind, bool) {
	i := slices.IndexFunc(collectionKinds, func(k collectionKind) bool { return k.control == control })
	if i < 0 {
		return collectionKind{}, false
	}
	return collectionKinds[i], true
}

// kindOfModality is the collection of a modality the bridge offers.
func kindOfModality(m protocol.Modality) collectionKind {
	i := slices.IndexFunc(collectionKinds, func(k collectionKind) bool { return k.mod == m })
	if i < 0 {
		return collectionKinds[0]
	}
	return collectionKinds[i]
}

// pressState is everything a press is judged by: the session's state as
// the press finds it.
type pressState struct {
	ended      bool // the session's events are over
	negotiated []protocol.Modality
	collecting string // the control whose collection runs; "" for none
	// pending is the agent's open request for a collection, if any.
	pending     bool
	pendingMod  protocol.Modality
	pendingID   string
	agentActive bool // a run is open: the agent is answering
}

// pressAction is what a press comes to.
type pressAction int

const (
	pressNothing     pressAction = iota // a release, a long SCAN or PHOTO, an unknown control
	pressRefuse                         // a notice says why, nothing else changes
	pressNotLive                        // no session serves it: refused as when not connected
	pressCancel                         // long CANCEL: the microphone closes, the collection and the run are cancelled
	pressTalk                           // TALK: the voice turn decides
	pressBusyCollect                    // a collection runs already: logged, no notice (the person sees it run)
	pressExtend                         // SCAN again while the reader is armed: the window grows (scanWindow bounds how often)
	pressCollect                        // start the collection
)

// pressOutcome is the decision about one press.
type pressOutcome struct {
	action pressAction
	kind   collectionKind // pressCollect, pressRefuse for an unavailable modality
	// interactionID is the agent's request the collection answers ("" for
	// a collection the person started).
	interactionID string
	// refusal is the notice's text for pressRefuse; unavailable is set
	// instead when the modality is not in the session, whose text names
	// why the device is absent (only the caller knows).
	refusal     string
	unavailable bool
}

// judgePress is the press's transition: from the session's state and the
// event, the next state and what to do. It does no I/O and reads no
// clock, so every rule of which press is allowed when is tested without a
// session or a goroutine (press_internal_test.go).
func judgePress(st pressState, ev button.Event) (pressState, pressOutcome) {
	if st.ended {
		return st, pressOutcome{action: pressNotLive}
	}
	if ev.Control == button.Cancel && ev.Long {
		return st, pressOutcome{action: pressCancel}
	}
	if ev.Control == button.Talk {
		return st, pressOutcome{action: pressTalk}
	}
	if !ev.Pressed || ev.Long {
		return st, pressOutcome{action: pressNothing}
	}
	k, ok := kindOfControl(ev.Control)
	if !ok {
		return st, pressOutcome{action: pressNothing}
	}
	if !slices.Contains(st.negotiated, k.mod) {
		return st, pressOutcome{action: pressRefuse, kind: k, unavailable: true}
	}
	if st.collecting == button.Scan && k.control == button.Scan {
		return st, pressOutcome{action: pressExtend, kind: k}
	}
	if st.collecting != "" {
		return st, pressOutcome{action: pressBusyCollect, kind: k}
	}
	id := ""
	switch {
	case st.pending && st.pendingMod != k.mod:
		// A press for the other modality never answers a request.
		want := kindOfModality(st.pendingMod)
		return st, pressOutcome{action: pressRefuse, kind: k, refusal: fmt.Sprintf("the agent asked for a %s: press %s",
			notice.DescribeModalities([]protocol.Modality{want.mod}), strings.ToUpper(want.control))}
	case st.pending:
		id = st.pendingID
	case st.agentActive:
		return st, pressOutcome{action: pressRefuse, kind: k, refusal: "the agent is still answering; press again when it is done"}
	}
	st.collecting = k.control
	return st, pressOutcome{action: pressCollect, kind: k, interactionID: id}
}
