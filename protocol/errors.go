package protocol

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Stable rejection codes. The first six are the public fixtures' own; the
// rest are ours (docs/architecture.md, "Where the spec is silent"). Codes never change
// meaning within 0.1: receivers and tests match on them.
const (
	CodeObservationSchema      = "observation.schema"      // not valid against the observation schema
	CodeObservationNegotiation = "observation.negotiation" // modality outside the negotiated intersection
	CodeImageBase64            = "image.base64"            // dataBase64 is not strict standard base64
	CodeImageIntegrity         = "image.integrity"         // byteCount or sha256 disagree with the decoded bytes
	CodeImageJPEG              = "image.jpeg"              // not a decodable baseline/progressive JPEG
	CodeImageDimensions        = "image.dimensions"        // frame header disagrees with pixelWidth/Height or exceeds 1,024 px
	CodeImageSize              = "image.size"              // decoded bytes exceed 61,440

	CodeCardSchema        = "card.schema"         // not valid against the card schema
	CodeCardSize          = "card.size"           // card larger than 256 KiB
	CodeCardExtension     = "card.extension"      // no recognized AgentCall declaration
	CodeCardDuplicate     = "card.duplicate"      // more than one recognized declaration (canonical and/or legacy)
	CodeCardRequired      = "card.required"       // an unknown extension is marked required
	CodeCardTransport     = "card.transport"      // transport/profile cannot carry physical inputs or is unsupported
	CodeCardVoice         = "card.voice"          // webrtc without voice.owner "agent"
	CodeCardModalities    = "card.modalities"     // agentRequests not a subset of accepted, duplicates, too many
	CodeCardWebRTCProfile = "card.webrtc-profile" // params.agui.webrtc is not the exact agentcall-webrtc-0.1 object
	CodeCardSession       = "card.session"        // resume advertised without replay

	CodeMessageSchema        = "message.schema"        // a client message not valid against the ws-client schema
	CodeEventSchema          = "event.schema"          // a server envelope not valid against the events schema
	CodeSessionOrder         = "session.order"         // first client message is not session.start (or a second one)
	CodeSessionResumed       = "session.resumed"       // session.established with resumed:true, which acbridge never asks for
	CodeSequenceOrder        = "sequence.order"        // server sequence repeated or decreasing (gaps are allowed)
	CodeTurnOrder            = "turn.order"            // turn not strictly increasing
	CodeInteractionUnmatched = "interaction.unmatched" // no such pending request, stale or already consumed
	CodeInteractionModality  = "interaction.modality"  // answer of the wrong modality
	CodeRunActive            = "run.active"            // a turn arrived while a run is active or awaited
	CodeRunOrder             = "run.order"             // run events out of order (delta outside a run, completed twice)
	CodeInteractionPending   = "interaction.pending"   // a second request while one is pending
	CodeInteractionForbidden = "interaction.forbidden" // a request for a modality not requestable in this session
	CodeAudioTurn            = "audio.turn"            // audio.turn.* out of order or on a card without explicit turns
	CodeFrameSize            = "frame.size"            // frame over 128 KiB
	CodeFrameBinary          = "frame.binary"          // binary frame
	CodeFrameUTF8            = "frame.utf8"            // text frame that is not UTF-8
	CodeFrameJSON            = "frame.json"            // text frame that is not one JSON object
)

// MaxMessageLen bounds every Error message, so that no caller can turn a
// rejection into an amplifier or an exfiltration channel.
const MaxMessageLen = 200

// Error is a rejection with a stable code. Messages are bounded and written
// by this package, never copied from the rejected input, so they cannot echo
// image bytes or credentials.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is lets errors.Is(err, &Error{Code: c}) match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

func newError(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: bound(fmt.Sprintf(format, args...))}
}

// bound cuts s to MaxMessageLen bytes on a rune boundary.
func bound(s string) string {
	if len(s) <= MaxMessageLen {
		return s
	}
	cut := MaxMessageLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.ToValidUTF8(s[:cut], "") + "…"
}

// Errors is a list of rejections; validation that can find several
// independent problems (schema errors on two fields) returns one.
type Errors []*Error

func (es Errors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Codes returns the distinct codes of err in first-seen order: the codes of
// an Errors list, of a single *Error, or none for nil.
func Codes(err error) []string {
	if err == nil {
		return nil
	}
	var list Errors
	if errors.As(err, &list) {
		seen := map[string]bool{}
		var out []string
		for _, e := range list {
			if !seen[e.Code] {
				seen[e.Code] = true
				out = append(out, e.Code)
			}
		}
		return out
	}
	var one *Error
	if errors.As(err, &one) {
		return []string{one.Code}
	}
	return []string{"unknown"}
}

// quoteBounded quotes at most n bytes of an untrusted string for a message.
func quoteBounded(s string, n int) string {
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return fmt.Sprintf("%q…", strings.ToValidUTF8(s[:cut], ""))
	}
	return fmt.Sprintf("%q", s)
}

// knownCodes holds every code this package defines.
var knownCodes = map[string]bool{}

func init() {
	for _, c := range []string{CodeObservationSchema, CodeObservationNegotiation, CodeImageBase64, CodeImageIntegrity, CodeImageJPEG, CodeImageDimensions, CodeImageSize, CodeCardSchema, CodeCardSize, CodeCardExtension, CodeCardDuplicate, CodeCardRequired, CodeCardTransport, CodeCardVoice, CodeCardModalities, CodeCardWebRTCProfile, CodeCardSession, CodeMessageSchema, CodeEventSchema, CodeSessionOrder, CodeSessionResumed, CodeSequenceOrder, CodeTurnOrder, CodeInteractionUnmatched, CodeInteractionModality, CodeRunActive, CodeRunOrder, CodeInteractionPending, CodeInteractionForbidden, CodeAudioTurn, CodeFrameSize, CodeFrameBinary, CodeFrameUTF8, CodeFrameJSON, CodePassportSchema} {
		knownCodes[c] = true
	}
}

// KnownCode reports whether code is one of this package's codes; a consumer
// that labels metrics by code folds unknown ones so that a peer cannot grow
// its label set.
func KnownCode(code string) bool { return knownCodes[code] }
