package protocol

import (
	"encoding/json"
)

// Server event types.
const (
	EventSessionEstablished   = "session.established"
	EventRunStarted           = "run.started"
	EventTextDelta            = "text.delta"
	EventSpeechSegment        = "speech.segment"
	EventRunCompleted         = "run.completed"
	EventInteractionRequested = "interaction.requested"
	EventInteractionResolved  = "interaction.resolved"
	EventFailure              = "failure"
)

// Interaction kinds and outcomes.
const (
	KindNFCScan      = "physical.nfc.scan"
	KindPhotoCapture = "physical.photo.capture"
	OutcomeAnswered  = "answered"
	OutcomeCancelled = "cancelled"
)

// KindModality maps an interaction kind to the modality that answers it.
func KindModality(kind string) (Modality, bool) {
	switch kind {
	case KindNFCScan:
		return NFC, true
	case KindPhotoCapture:
		return Photo, true
	}
	return "", false
}

// ModalityKind is KindModality's inverse.
func ModalityKind(m Modality) string {
	if m == Photo {
		return KindPhotoCapture
	}
	return KindNFCScan
}

// Envelope is one server message.
type Envelope struct {
	Sequence int64 `json:"sequence"`
	Event    Event `json:"event"`
}

// Event is any server event; fields not carried by Type are zero. Unknown
// event types decode with only Type set and are ignored by clients.
type Event struct {
	Type string

	Resumed bool // session.established

	Text      string // text.delta, speech.segment
	SegmentID string // speech.segment
	Stable    bool   // speech.segment

	InteractionID  string // interaction.requested, interaction.resolved
	Kind           string // interaction.requested
	Prompt         string
	SpokenPrompt   string
	AllowsFreeform bool
	Outcome        string // interaction.resolved

	Code    string // failure
	Message string
}

// MarshalJSON writes exactly the fields the event type carries, including
// required false/empty values (resumed:false, options:[]) that omitempty
// would drop.
func (e Event) MarshalJSON() ([]byte, error) {
	m := map[string]any{"type": e.Type}
	switch e.Type {
	case EventSessionEstablished:
		m["resumed"] = e.Resumed
	case EventTextDelta:
		m["text"] = e.Text
	case EventSpeechSegment:
		m["segmentId"], m["text"], m["stable"] = e.SegmentID, e.Text, e.Stable
	case EventInteractionRequested:
		m["interactionId"], m["kind"] = e.InteractionID, e.Kind
		m["prompt"], m["spokenPrompt"] = e.Prompt, e.SpokenPrompt
		m["options"], m["allowsFreeform"] = []string{}, e.AllowsFreeform
	case EventInteractionResolved:
		m["interactionId"], m["outcome"] = e.InteractionID, e.Outcome
	case EventFailure:
		m["code"], m["message"] = e.Code, e.Message
	}
	return json.Marshal(m)
}

// eventWire is Event as it is spelled on the wire.
type eventWire struct {
	Type           string `json:"type"`
	Resumed        bool   `json:"resumed"`
	Text           string `json:"text"`
	SegmentID      string `json:"segmentId"`
	Stable         bool   `json:"stable"`
	InteractionID  string `json:"interactionId"`
	Kind           string `json:"kind"`
	Prompt         string `json:"prompt"`
	SpokenPrompt   string `json:"spokenPrompt"`
	AllowsFreeform bool   `json:"allowsFreeform"`
	Outcome        string `json:"outcome"`
	Code           string `json:"code"`
	Message        string `json:"message"`
}

// UnmarshalJSON reads the fields of every known type; the schema has already
// checked which are present. Parsers reach it through decodeExact, which has
// dropped members whose keys only fold to these names.
func (e *Event) UnmarshalJSON(b []byte) error {
	var w eventWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*e = Event(w)
	return nil
}

// ParseEnvelope checks and decodes one server frame: frame rules, then the
// events schema (event.schema).
func ParseEnvelope(frame []byte) (*Envelope, error) {
	inst, err := decodeFrame(frame)
	if err != nil {
		return nil, err
	}
	if err := schemaCheck(SchemaEvents, inst, CodeEventSchema, "server envelope"); err != nil {
		return nil, err
	}
	return decodeBounded[Envelope](inst, CodeEventSchema, "server envelope")
}

// MarshalEnvelope encodes env and checks it against the schema and the frame
// bound before it is sent.
func MarshalEnvelope(env *Envelope) ([]byte, error) {
	return marshalChecked(env, ParseEnvelope, CodeEventSchema, "server envelope")
}

// Failure builds a failure event from a rejection: its code and bounded
// message, never the input.
func Failure(err error) Event {
	codes := Codes(err)
	code, msg := "internal", "internal error"
	if len(codes) > 0 {
		code = codes[0]
	}
	if pe, ok := err.(*Error); ok {
		msg = pe.Message
	} else if es, ok := err.(Errors); ok && len(es) > 0 {
		msg = es[0].Message
	}
	return Event{Type: EventFailure, Code: code, Message: bound(msg)}
}
