package protocol

import (
	"bytes"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Extension identifiers. The legacy identifier is accepted as an alias;
// a card declares exactly one of them.
const (
	ExtensionURI       = "https://agentcall.smartycode.com/ext/agentcall-agui/0.1"
	LegacyExtensionURI = "https://agentcall.invalid/ext/agentcall-agui/0.1"
)

// Transports and the WebRTC profile.
const (
	TransportWebSocket = "websocket"
	TransportWebRTC    = "webrtc"
	WebRTCProfile      = "agentcall-webrtc-0.1"
	DataChannelLabel   = "agentcall.events"
	DataChannelProto   = "agentcall-agui-dc-0.1"
	WSBinding          = "agentcall-agui-ws-0.1"
)

// Card is the part of an A2A Agent Card an AgentCall client uses, after
// validation.
type Card struct {
	Name   string
	URI    string // the recognized extension URI the card declared
	Legacy bool   // URI is the legacy alias
	Params Params
}

// Params is the AgentCall extension's params object.
type Params struct {
	SchemaVersion        string             `json:"schemaVersion"`
	AGUI                 AGUI               `json:"agui"`
	Voice                Voice              `json:"voice"`
	PhysicalObservations PhysicalParameters `json:"physicalObservations"`
}

// AGUI names the AG-UI endpoint.
type AGUI struct {
	URL       string          `json:"url"`
	Transport string          `json:"transport"`
	Session   *SessionOptions `json:"session,omitempty"`
	WebRTC    *WebRTC         `json:"webrtc,omitempty"`
}

// SessionOptions: resume and replay are never used by acbridge 0.1.
type SessionOptions struct {
	Resume bool `json:"resume"`
	Replay bool `json:"replay"`
}

// Voice says who owns speech: "client" (the client speaks text) or "agent".
type Voice struct {
	Owner string `json:"owner,omitempty"`
}

// PhysicalParameters are the card's modality declarations.
type PhysicalParameters struct {
	Accepted      []Modality `json:"accepted,omitempty"`
	AgentRequests []Modality `json:"agentRequests,omitempty"`
}

// WebRTC is params.agui.webrtc.
type WebRTC struct {
	Profile string `json:"profile"`
	Audio   struct {
		Codec       string `json:"codec"`
		ClockRateHz int    `json:"clockRateHz"`
		Channels    int    `json:"channels"`
		Direction   string `json:"direction"`
	} `json:"audio"`
	Events struct {
		Transport string `json:"transport"`
		Label     string `json:"label"`
		Protocol  string `json:"protocol"`
		Ordered   bool   `json:"ordered"`
	} `json:"events"`
	SupportsExplicitTurns bool `json:"supportsExplicitTurns,omitempty"`
}

// ExactProfile reports whether w is the agentcall-webrtc-0.1 object. Only
// supportsExplicitTurns may vary.
func (w *WebRTC) ExactProfile() bool {
	return w != nil && w.Profile == WebRTCProfile &&
		w.Audio.Codec == "opus" && w.Audio.ClockRateHz == 48000 && w.Audio.Channels == 1 && w.Audio.Direction == "sendrecv" &&
		w.Events.Transport == "datachannel" && w.Events.Label == DataChannelLabel && w.Events.Protocol == DataChannelProto && w.Events.Ordered
}

// NewWebRTCProfile returns the exact agentcall-webrtc-0.1 object.
func NewWebRTCProfile(explicitTurns bool) *WebRTC {
	w := &WebRTC{Profile: WebRTCProfile, SupportsExplicitTurns: explicitTurns}
	w.Audio.Codec, w.Audio.ClockRateHz, w.Audio.Channels, w.Audio.Direction = "opus", 48000, 1, "sendrecv"
	w.Events.Transport, w.Events.Label, w.Events.Protocol, w.Events.Ordered = "datachannel", DataChannelLabel, DataChannelProto, true
	return w
}

// ParseCard validates a raw Agent Card against the contract and returns what
// the client needs. All card rules are checked and every broken one is
// reported (Errors, codes card.*):
//
//   - at most 256 KiB (card.size) and valid against the card schema (card.schema);
//   - exactly one recognized declaration, canonical or legacy (card.extension,
//     card.duplicate — a mixed canonical/legacy pair is a duplicate);
//   - no unknown extension marked required (card.required);
//   - agentRequests within accepted (card.modalities);
//   - physical inputs only on websocket or the exact agentcall-webrtc-0.1
//     profile (card.transport, card.webrtc-profile), webrtc only with
//     voice.owner "agent" (card.voice) and without resume or replay;
//   - no resume without replay (card.session).
//
// Transports other than websocket and webrtc without physical inputs are
// valid cards that acbridge cannot use: see Card.Usable.
func ParseCard(raw []byte) (*Card, error) {
	if len(raw) > MaxCardBytes {
		return nil, Errors{newError(CodeCardSize, "card is %d bytes; the limit is %d", len(raw), MaxCardBytes)}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, Errors{newError(CodeCardSchema, "card is not JSON")}
	}
	if err := schemaCheck(SchemaCard, inst, CodeCardSchema, "card"); err != nil {
		return nil, Errors{err.(*Error)}
	}
	var doc struct {
		Name         string `json:"name"`
		Capabilities struct {
			Extensions []struct {
				URI      string `json:"uri"`
				Required bool   `json:"required"`
				Params   any    `json:"params"`
			} `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := decodeExact(inst, &doc); err != nil {
		return nil, Errors{newError(CodeCardSchema, "card does not fit its Go type")}
	}
	var errs Errors
	card := &Card{Name: doc.Name}
	found := 0
	for _, ext := range doc.Capabilities.Extensions {
		switch ext.URI {
		case ExtensionURI, LegacyExtensionURI:
			found++
			if found > 1 {
				continue
			}
			card.URI, card.Legacy = ext.URI, ext.URI == LegacyExtensionURI
			if err := decodeExact(ext.Params, &card.Params); err != nil {
				errs = append(errs, newError(CodeCardSchema, "AgentCall params do not fit their Go type"))
			}
		default:
			if ext.Required {
				errs = append(errs, newError(CodeCardRequired, "the card requires extension %s, which this client does not know", quoteBounded(ext.URI, 96)))
			}
		}
	}
	switch {
	case found == 0:
		errs = append(errs, newError(CodeCardExtension, "the card declares no AgentCall AG-UI 0.1 extension"))
	case found > 1:
		errs = append(errs, newError(CodeCardDuplicate, "the card declares the AgentCall extension %d times; producers emit exactly one identifier", found))
	default:
		errs = append(errs, card.Params.check()...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return card, nil
}

func (p *Params) check() Errors {
	errs := p.checkBounds()
	phys := p.PhysicalObservations
	for _, m := range phys.AgentRequests {
		if !slices.Contains(phys.Accepted, m) {
			errs = append(errs, newError(CodeCardModalities, "agentRequests names %s, which accepted does not", m))
		}
	}
	physical := len(phys.Accepted) > 0 || len(phys.AgentRequests) > 0
	// "Resume is optional and must not be advertised without a separately
	// tested replay implementation."
	if s := p.AGUI.Session; s != nil && s.Resume && !s.Replay {
		errs = append(errs, newError(CodeCardSession, "the card advertises resume without replay; resume must not be advertised without replay"))
	}
	switch p.AGUI.Transport {
	case TransportWebSocket:
	case TransportWebRTC:
		if p.Voice.Owner != "agent" {
			errs = append(errs, newError(CodeCardVoice, "transport webrtc requires voice.owner \"agent\""))
		}
		if !p.AGUI.WebRTC.ExactProfile() {
			errs = append(errs, newError(CodeCardWebRTCProfile, "params.agui.webrtc is not the exact %s profile", WebRTCProfile))
		}
		if s := p.AGUI.Session; s != nil && (s.Resume || s.Replay) {
			errs = append(errs, newError(CodeCardWebRTCProfile, "resume and replay are false in %s", WebRTCProfile))
		}
	default:
		if physical {
			errs = append(errs, newError(CodeCardTransport, "physical observations are supported only on websocket or %s, not on this transport", WebRTCProfile))
		}
	}
	return errs
}

// Usable reports whether this client can connect to the card's AG-UI
// endpoint at all (websocket or webrtc), with an incompatibility error
// (card.transport) when it cannot.
func (c *Card) Usable() error {
	switch c.Params.AGUI.Transport {
	case TransportWebSocket, TransportWebRTC:
		return nil
	}
	return newError(CodeCardTransport, "the card's AG-UI transport is not websocket or webrtc; this client cannot enroll")
}

// PhysicalAllowed reports whether the card's profile may carry physical
// inputs at all: websocket or the exact agentcall-webrtc-0.1 profile. A
// Card built in code (or persisted) has not necessarily been through
// ParseCard, so connectors check it again ("Runtime connectors must also
// suppress physical capabilities and reject sends for unsupported
// persisted profiles").
func (c *Card) PhysicalAllowed() bool {
	switch c.Params.AGUI.Transport {
	case TransportWebSocket:
		return true
	case TransportWebRTC:
		return c.Params.AGUI.WebRTC.ExactProfile()
	}
	return false
}

// Accepts reports whether the card accepts observations of modality m.
func (c *Card) Accepts(m Modality) bool {
	return slices.Contains(c.Params.PhysicalObservations.Accepted, m)
}

// Requests reports whether the agent may request modality m.
func (c *Card) Requests(m Modality) bool {
	return slices.Contains(c.Params.PhysicalObservations.AgentRequests, m)
}

// ExplicitTurns reports whether the card permits audioTurnControl explicit.
func (c *Card) ExplicitTurns() bool {
	return c.Params.AGUI.Transport == TransportWebRTC && c.Params.AGUI.WebRTC != nil && c.Params.AGUI.WebRTC.SupportsExplicitTurns
}
