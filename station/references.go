package station

import (
	"log/slog"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"
)

// WithReferences is a, or a under the [nfc] references policy when that
// reads NDEF: every reader StartNFC opens resolves tags through it, and
// `acbridge accept` does the same.
func WithReferences(c config.NFC, a nfc.Aliaser, log *slog.Logger) nfc.Aliaser {
	p := c.NDEFPolicy()
	if !p.Reads() || a == nil {
		return a
	}
	return &nfc.References{Aliaser: a, Policy: p, Logger: log}
}
