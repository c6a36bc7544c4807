package conformance

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"

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
	// WalkthroughCard optionally names the card case the walkthrough was
	// recorded against (an acbridge extension of the fixture format; see
	// TraceConfig).
	WalkthroughCard string `json:"walkthroughCard,omitempty"`
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
// under, and where it came from. The rule:
//
//  1. the card case the file names in "walkthroughCard" (it must exist and
//     be valid);
//  2. otherwise the first valid card of the file, on a transport acbridge
//     can use, that accepts every modality the walkthrough's session.start
//     offers and may request every modality its interaction.requested
//     events ask for;
//  3. otherwise a card that accepts exactly what session.start offers and
//     may request exactly what the walkthrough requests.
//
// So a file whose first valid card accepts only photo does not fail a
// walkthrough that offers and uses nfc too, and a file can still pin the
// card its walkthrough was recorded against.
func (f *Fixtures) TraceConfig() (protocol.SessionConfig, string, error) {
	if f.WalkthroughCard != "" {
		for _, c := range f.Cards {
			if c.Name != f.WalkthroughCard {
				continue
			}
			card, err := protocol.ParseCard(c.Card)
			if err != nil {
				return protocol.SessionConfig{}, "", fmt.Errorf("conformance: walkthroughCard %q is not a valid card: %w", c.Name, err)
			}
			return protocol.ConfigFromCard(card), "card " + c.Name, nil
		}
		return protocol.SessionConfig{}, "", fmt.Errorf("conformance: walkthroughCard %q names no card of the file", f.WalkthroughCard)
	}
	offered, requested := traceModalities(f.Walkthrough)
	for _, c := range f.Cards {
		if !c.Valid {
			continue
		}
		card, err := protocol.ParseCard(c.Card)
		if err != nil || card.Usable() != nil {
			continue
		}
		cfg := protocol.ConfigFromCard(card)
		if containsAll(cfg.Accepted, offered) && containsAll(cfg.AgentRequests, requested) {
			return cfg, "card " + c.Name, nil
		}
	}
	return protocol.SessionConfig{Accepted: offered, AgentRequests: requested}, "a card accepting what session.start offers", nil
}

// traceModalities returns what the trace's session.start offers and the
// modalities its interaction.requested events ask for. Unparseable steps
// are skipped here; CheckTrace reports them.
func traceModalities(steps []Step) (offered, requested []protocol.Modality) {
	for _, st := range steps {
		switch st.Direction {
		case "client":
			if m, err := protocol.ParseClientMessage(st.Message); err == nil && m.Type == protocol.TypeSessionStart && offered == nil {
				offered = append([]protocol.Modality{}, m.ClientCapabilities.Modalities()...)
			}
		case "server":
			if env, err := protocol.ParseEnvelope(st.Message); err == nil && env.Event.Type == protocol.EventInteractionRequested {
				if mod, ok := protocol.KindModality(env.Event.Kind); ok && !slices.Contains(requested, mod) {
					requested = append(requested, mod)
				}
			}
		}
	}
	return offered, requested
}

func containsAll(set, want []protocol.Modality) bool {
	for _, m := range want {
		if !slices.Contains(set, m) {
			return false
		}
	}
	return true
}
