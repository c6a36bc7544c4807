package protocol

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// The checkBounds methods re-check, on the decoded Go values, every bound
// the schemas state. The schema has already seen the same values
// (decodeExact builds the structs from exactly what it validated), so a
// failure here means the schema and the decoder disagree: a defect, never
// an input the peer may rely on. Lengths count characters, as JSON Schema's
// maxLength does.

func runes(s string) int { return utf8.RuneCountInString(s) }

// inLen reports whether s has between lo and hi characters.
func inLen(s string, lo, hi int) bool {
	n := runes(s)
	return n >= lo && n <= hi
}

// printableASCII reports whether s is 1..n characters of 0x21..0x7e.
func printableASCII(s string, n int) bool {
	if len(s) == 0 || len(s) > n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}

// failureCode is the schema's ^[a-z][a-z0-9._-]*$, 1..64.
func failureCode(s string) bool {
	if len(s) == 0 || len(s) > MaxFailureCode || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789._-") == ""
}

const maxSafeInt = 1<<53 - 1

// validModalities is the schema's modality list: unique, at most two, nfc
// or photo.
func validModalities(ms []Modality) bool {
	if len(ms) > 2 {
		return false
	}
	for i, m := range ms {
		if !slices.Contains(Modalities, m) || slices.Contains(ms[:i], m) {
			return false
		}
	}
	return true
}

func (env *Envelope) checkBounds() error {
	bad := func(field string) error {
		return newError(CodeEventSchema, "server envelope: %s is out of bounds", field)
	}
	if env.Sequence < 1 || env.Sequence > maxSafeInt {
		return bad("sequence")
	}
	e := &env.Event
	if !inLen(e.Type, 1, 64) {
		return bad("event.type")
	}
	switch e.Type {
	case EventTextDelta:
		if runes(e.Text) > MaxTextLen {
			return bad("event.text")
		}
	case EventSpeechSegment:
		if runes(e.Text) > MaxTextLen || !inLen(e.SegmentID, 1, 128) || !e.Stable {
			return bad("speech.segment fields")
		}
	case EventInteractionRequested:
		if _, ok := KindModality(e.Kind); !ok || !printableASCII(e.InteractionID, MaxInteractionID) ||
			runes(e.Prompt) > MaxPromptLen || runes(e.SpokenPrompt) > MaxPromptLen || e.AllowsFreeform {
			return bad("interaction.requested fields")
		}
	case EventInteractionResolved:
		if !printableASCII(e.InteractionID, MaxInteractionID) || (e.Outcome != OutcomeAnswered && e.Outcome != OutcomeCancelled) {
			return bad("interaction.resolved fields")
		}
	case EventFailure:
		if !failureCode(e.Code) || runes(e.Message) > MaxFailureMsg {
			return bad("failure fields")
		}
	}
	return nil
}

func (m *ClientMessage) checkBounds() error {
	bad := func(field string) error {
		return newError(CodeMessageSchema, "client message: %s is out of bounds", field)
	}
	turn := func() bool { return m.Turn >= 1 && m.Turn <= maxSafeInt }
	if len(m.Context) > 16 {
		return bad("context")
	}
	for _, c := range m.Context {
		if runes(c.Description) > 256 || runes(c.Value) > 4096 {
			return bad("context")
		}
	}
	switch m.Type {
	case TypeSessionStart:
		if !printableASCII(m.SessionID, MaxSessionID) || !validModalities(m.ClientCapabilities.Modalities()) {
			return bad("session.start fields")
		}
		if c := m.ClientCapabilities; c != nil && c.AudioTurnControl != nil && c.AudioTurnControl.Mode != "explicit" {
			return bad("audioTurnControl.mode")
		}
	case TypeUserTurn:
		if !turn() || !inLen(m.Text, 1, MaxTextLen) {
			return bad("user.turn fields")
		}
	case TypeUserObservation:
		if !turn() || m.Observation == nil || (m.InteractionID != "" && !printableASCII(m.InteractionID, MaxInteractionID)) {
			return bad("user.observation fields")
		}
		if err := m.Observation.checkBounds(); err != nil {
			return err
		}
	case TypeAck:
		if m.Sequence < 1 || m.Sequence > maxSafeInt {
			return bad("sequence")
		}
	case TypeAudioTurnStart, TypeAudioTurnCommit, TypeAudioTurnCancel:
		if !turn() {
			return bad("turn")
		}
	case TypeResponseCancel, TypeSessionEnd:
	default:
		return bad("type")
	}
	return nil
}

func (o *Observation) checkBounds() error {
	bad := func(field string) error {
		return newError(CodeObservationSchema, "observation: %s is out of bounds", field)
	}
	if o.SchemaVersion != SchemaVersion || !inLen(o.ObservationID, 1, MaxObservationID) || len(o.CapturedAt) > 64 {
		return bad("header fields")
	}
	if !slices.Contains(Intents, o.Intent) {
		return bad("intent")
	}
	if o.Object == nil && o.Image == nil {
		return bad("object and image")
	}
	if ob := o.Object; ob != nil {
		if !validObjectRef(ob.ObjectRef) || !inLen(ob.Carrier, 1, 64) || !lowerHex64(ob.PayloadSHA256) ||
			(ob.Assurance != AssuranceUnverified && ob.Assurance != "signedTag") {
			return bad("object")
		}
	}
	if im := o.Image; im != nil {
		if im.MediaType != MediaTypeJPEG || !inLen(im.DataBase64, 1, 81920) || im.ByteCount < 1 || im.ByteCount > MaxImageBytes ||
			!lowerHex64(im.SHA256) || im.PixelWidth < 1 || im.PixelWidth > MaxImagePixels || im.PixelHeight < 1 || im.PixelHeight > MaxImagePixels {
			return bad("image")
		}
	}
	return nil
}

// validObjectRef is the coarse shape of the schema's objectRef: bounded,
// urn:agentcall:object: with a 1..256 name or https://, no whitespace or
// controls.
func validObjectRef(s string) bool {
	if len(s) > 2048 || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
		return false
	}
	if name, ok := strings.CutPrefix(s, ObjectRefPrefix); ok {
		return len(name) >= 1 && len(name) <= 256
	}
	return strings.HasPrefix(s, "https://") && len(s) > len("https://")
}

func (p *Params) checkBounds() Errors {
	phys := p.PhysicalObservations
	if !validModalities(phys.Accepted) || !validModalities(phys.AgentRequests) {
		return Errors{newError(CodeCardModalities, "accepted and agentRequests are unique lists of at most two of nfc, photo")}
	}
	return nil
}

func (p *Passport) checkBounds() error {
	bad := func(field string) error {
		return newError(CodePassportSchema, "passport: %s is out of bounds", field)
	}
	if p.SchemaVersion != SchemaVersion || !validObjectRef(p.ObjectRef) || !inLen(p.Label, 1, MaxLabelLen) || runes(p.Description) > 2048 {
		return bad("header fields")
	}
	if len(p.References) > 16 || len(p.Facts) > 32 || len(p.Actions) > 16 {
		return bad("list lengths")
	}
	for _, r := range p.References {
		if !validObjectRef(r) {
			return bad("references")
		}
	}
	for _, f := range p.Facts {
		if !inLen(f.Name, 1, 128) || runes(f.Value) > 1024 {
			return bad("facts")
		}
	}
	for _, a := range p.Actions {
		if !a.RequiresConfirmation || !inLen(a.ID, 1, 128) || !inLen(a.Title, 1, 256) {
			return bad("actions")
		}
	}
	return nil
}
