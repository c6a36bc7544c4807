package config

import (
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/protocol"
)

// The names the configuration accepts come from the packages that define
// them, so that a new modality, intent or control is one edit there.
var (
	intents  = protocol.Intents
	controls = button.Controls
)

const (
	defaultIntent = protocol.IntentIdentify
	cancelControl = button.Cancel
)

// modalityNames lists protocol.Modalities as modalities.enabled spells them.
func modalityNames() []string {
	names := make([]string, len(protocol.Modalities))
	for i, m := range protocol.Modalities {
		names[i] = string(m)
	}
	return names
}
