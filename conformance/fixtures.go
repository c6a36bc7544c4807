package conformance

import (
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agentcall/acbridge/protocol"
)

// PublicFixtures is the public physical-conformance.json, unchanged.
//
//go:embed fixtures/physical-conformance.json
var PublicFixtures []byte

// MaxFixtureBytes bounds a fixture file read from disk.
const MaxFixtureBytes = 16 << 20

// Fixtures is a parsed fixture file.
type Fixtures struct {
	SchemaVersion string            `json:"schemaVersion"`
	Cards         []CardCase        `json:"cards"`
	Observations  []ObservationCase `json:"observations"`
	Walkthrough   []Step            `json:"walkthrough"`
}

// CardCase is a card that must be valid or invalid.
type CardCase struct {
	Name  string          `json:"name"`
	Card  json.RawMessage `json:"card"`
	Valid bool            `json:"valid"`
}

// ObservationCase is an observation with the session's modalities and the
// exact rejection codes expected (none: accepted).
type ObservationCase struct {
	Name             string              `json:"name"`
	Observation      json.RawMessage     `json:"observation"`
	ClientModalities []protocol.Modality `json:"clientModalities"`
	Accepted         []protocol.Modality `json:"accepted"`
	ExpectedErrors   []string            `json:"expectedErrors"`
}

// Step is one message of a trace, as it crossed the wire.
type Step struct {
	Direction string          `json:"direction"` // "client" or "server"
	Message   json.RawMessage `json:"message"`
}

// Parse decodes a fixture file.
func Parse(b []byte) (*Fixtures, error) {
	if len(b) > MaxFixtureBytes {
		return nil, fmt.Errorf("conformance: fixture file is %d bytes; the limit is %d", len(b), MaxFixtureBytes)
	}
	var f Fixtures
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("conformance: fixture file is not valid JSON: %w", err)
	}
	if f.SchemaVersion != protocol.SchemaVersion {
		return nil, fmt.Errorf("conformance: fixture file has schemaVersion %q; this tool checks %q", f.SchemaVersion, protocol.SchemaVersion)
	}
	if len(f.Cards)+len(f.Observations)+len(f.Walkthrough) == 0 {
		return nil, fmt.Errorf("conformance: fixture file has no cards, observations or walkthrough")
	}
	return &f, nil
}

// TraceConfig is the session configuration the walkthrough is checked
// under: the first valid websocket card of the file, or a card that accepts
// and may request both modalities.
func (f *Fixtures) TraceConfig() protocol.SessionConfig {
	for _, c := range f.Cards {
		if !c.Valid {
			continue
		}
		if card, err := protocol.ParseCard(c.Card); err == nil && card.Params.AGUI.Transport == protocol.TransportWebSocket {
			return protocol.ConfigFromCard(card)
		}
	}
	all := []protocol.Modality{protocol.NFC, protocol.Photo}
	return protocol.SessionConfig{Accepted: all, AgentRequests: all}
}
