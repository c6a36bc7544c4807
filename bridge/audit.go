package bridge

import (
	"log/slog"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// auditSent writes the privacy audit line for an observation that left the
// device: what kind, the objectRef or the image's digest, size and
// dimensions, the request it answered (its interactionId escaped and cut:
// the agent chose its length and characters), its turn and the agent's
// origin, so an operator can answer "what did this kiosk send, and when".
// It never carries a UID (the reader never hands one out) or image bytes,
// nor a portable NDEF reference, which may name a person: only its digest.
func (c *conv) auditSent(kind string, r collected, turn int64) {
	attrs := []any{
		slog.String("audit", "observation.sent"),
		slog.String("kind", kind),
		slog.String("agent", c.origin),
		slog.Int64("turn", turn),
		slog.String("observationId", r.obs.ObservationID),
		slog.String("capturedAt", r.obs.CapturedAt),
		slog.String("intent", r.obs.Intent),
	}
	if r.interactionID != "" {
		attrs = append(attrs, slog.String("interactionId", protocol.ForLog(r.interactionID, maxLoggedID)))
	}
	if o := r.obs.Object; o != nil {
		attrs = append(attrs, slog.String("objectRef", nfc.LoggedRef(*o)), slog.String("carrier", o.Carrier),
			slog.String("payloadSha256", o.PayloadSHA256))
	}
	if im := r.obs.Image; im != nil {
		attrs = append(attrs, slog.String("sha256", im.SHA256), slog.Int("byteCount", im.ByteCount),
			slog.Int("pixelWidth", im.PixelWidth), slog.Int("pixelHeight", im.PixelHeight))
	}
	c.b.audit.Info("observation sent", attrs...)
}
