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

func lowerHex64(s string) bool {
	if len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
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
	// Lengths and characters of the strings are the agent's: the contract
	// fixes none of them, and the frame bound already bounds them.
	e := &env.Event
	switch e.Type {
	case EventSpeechSegment:
		if !e.Stable {
			return bad("speech.segment fields")
		}
	case EventInteractionRequested:
		if _, ok := KindModality(e.Kind); !ok || e.InteractionID == "" || e.AllowsFreeform {
			return bad("interaction.requested fields")
		}
	case EventInteractionResolved:
		if e.InteractionID == "" || (e.Outcome != OutcomeAnswered && e.Outcome != OutcomeCancelled) {
			return bad("interaction.resolved fields")
		}
	}
	return nil
}

func (m *ClientMessage) checkBounds() error {
	bad := func(field string) error {
		return newError(CodeMessageSchema, "client message: %s is out of bounds", field)
	}
	turn := func() bool { return m.Turn >= 1 && m.Turn <= maxSafeInt }
	switch m.Type {
	case TypeSessionStart:
		if !validModalities(m.ClientCapabilities.Modalities()) {
			return bad("session.start fields")
		}
		if c := m.ClientCapabilities; c != nil && c.AudioTurnControl != nil && c.AudioTurnControl.Mode != "explicit" {
			return bad("audioTurnControl.mode")
		}
	case TypeUserTurn:
		if !turn() {
			return bad("user.turn fields")
		}
	case TypeUserObservation:
		if !turn() || m.Observation == nil {
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
	if o.SchemaVersion != SchemaVersion {
		return bad("header fields")
	}
	if !slices.Contains(Intents, o.Intent) {
		return bad("intent")
	}
	if o.Object == nil && o.Image == nil {
		return bad("object and image")
	}
	if ob := o.Object; ob != nil {
		if !validObjectRef(ob.ObjectRef) || !lowerHex64(ob.PayloadSHA256) ||
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

// validObjectRef is the schema's objectRef: urn:agentcall:object: or
// https:// and at least one more character, all of them URI characters
// (RFC 3986), so no whitespace, controls or non-ASCII; an https authority
// has no userinfo.
func validObjectRef(s string) bool {
	if name, ok := strings.CutPrefix(s, ObjectRefPrefix); ok {
		return name != "" && strings.Trim(name, uriChars) == ""
	}
	rest, ok := strings.CutPrefix(s, "https://")
	authority, _, _ := strings.Cut(rest, "/")
	authority, _, _ = strings.Cut(authority, "?")
	authority, _, _ = strings.Cut(authority, "#")
	return ok && authority != "" && !strings.Contains(authority, "@") && strings.Trim(rest, uriChars) == ""
}

// uriChars are RFC 3986's unreserved, reserved and percent characters.
const uriChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%"

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
