package protocol

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Client message types.
const (
	TypeSessionStart    = "session.start"
	TypeUserTurn        = "user.turn"
	TypeUserObservation = "user.observation"
	TypeAck             = "ack"
	TypeResponseCancel  = "response.cancel"
	TypeSessionEnd      = "session.end"
	TypeAudioTurnStart  = "audio.turn.start"
	TypeAudioTurnCommit = "audio.turn.commit"
	TypeAudioTurnCancel = "audio.turn.cancel"
)

// ClientMessage is any client input message. One flat type keeps encoding
// exact (omitempty drops what a type does not carry) and lets a session
// state machine switch on Type.
type ClientMessage struct {
	Type               string              `json:"type"`
	SessionID          string              `json:"sessionId,omitempty"`
	ClientCapabilities *ClientCapabilities `json:"clientCapabilities,omitempty"`
	Turn               int64               `json:"turn,omitempty"`
	Text               string              `json:"text,omitempty"`
	InteractionID      string              `json:"interactionId,omitempty"`
	Observation        *Observation        `json:"observation,omitempty"`
	Context            []ContextEntry      `json:"context,omitempty"`
	Sequence           int64               `json:"sequence,omitempty"`
}

// ClientCapabilities is what the client offers in session.start.
type ClientCapabilities struct {
	PhysicalObservations *PhysicalCapabilities `json:"physicalObservations,omitempty"`
	AudioTurnControl     *AudioTurnControl     `json:"audioTurnControl,omitempty"`
}

// PhysicalCapabilities lists the modalities whose hardware is present and enabled.
type PhysicalCapabilities struct {
	Modalities []Modality `json:"modalities"`
}

// AudioTurnControl with Mode "explicit" is offered only when the card says
// supportsExplicitTurns.
type AudioTurnControl struct {
	Mode string `json:"mode"`
}

// ContextEntry is an optional AG-UI Context entry.
type ContextEntry struct {
	Description string `json:"description"`
	Value       string `json:"value"`
}

// Modalities returns the client's offered modalities (nil when absent).
func (c *ClientCapabilities) Modalities() []Modality {
	if c == nil || c.PhysicalObservations == nil {
		return nil
	}
	return c.PhysicalObservations.Modalities
}

// ExplicitTurns reports whether the client offered explicit audio turns.
func (c *ClientCapabilities) ExplicitTurns() bool {
	return c != nil && c.AudioTurnControl != nil && c.AudioTurnControl.Mode == "explicit"
}

// CheckFrame applies the transport rules to one received frame before any
// parsing: at most 128 KiB (frame.size), text not binary (frame.binary),
// valid UTF-8 (frame.utf8).
func CheckFrame(frame []byte, binary bool) error {
	if len(frame) > MaxFrameBytes {
		return newError(CodeFrameSize, "frame is %d bytes; the limit is %d", len(frame), MaxFrameBytes)
	}
	if binary {
		return newError(CodeFrameBinary, "binary frames are not allowed; send UTF-8 JSON text")
	}
	if !utf8.Valid(frame) {
		return newError(CodeFrameUTF8, "frame is not valid UTF-8")
	}
	return nil
}

// decodeFrame checks a text frame and decodes it for schema validation.
func decodeFrame(frame []byte) (any, error) {
	if err := CheckFrame(frame, false); err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(frame))
	if err != nil {
		return nil, newError(CodeFrameJSON, "frame is not one JSON value")
	}
	if _, ok := inst.(map[string]any); !ok {
		return nil, newError(CodeFrameJSON, "frame is not a JSON object")
	}
	return inst, nil
}

// ParseClientMessage checks and decodes one client frame: the frame rules,
// the ws-client schema (message.schema; observation.schema when only the
// embedded observation is wrong) and, for observations, nothing more —
// negotiation and image rules need session state (see Session.Client).
func ParseClientMessage(frame []byte) (*ClientMessage, error) {
	inst, err := decodeFrame(frame)
	if err != nil {
		return nil, err
	}
	locs, err := validateSchema(SchemaClient, inst)
	if err != nil {
		return nil, newError(CodeMessageSchema, "schema unavailable: %v", err)
	}
	if len(locs) > 0 {
		code := CodeObservationSchema
		for _, l := range locs {
			if l != "/observation" && !strings.HasPrefix(l, "/observation/") {
				code = CodeMessageSchema
			}
		}
		return nil, newError(code, "client message is not valid at %s", describeLocations(locs))
	}
	return decodeBounded[ClientMessage](inst, CodeMessageSchema, "client message")
}

// MarshalClientMessage encodes m and checks it against the schema and the
// frame bound, so that nothing malformed ever leaves this process.
func MarshalClientMessage(m *ClientMessage) ([]byte, error) {
	return marshalChecked(m, ParseClientMessage, CodeMessageSchema, "client message")
}
