package daemon

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/internal/journallog"
)

// However much an agent makes the daemon log, its log stays bounded and
// every audit line is written.
func TestAuditLinesPassTheDaemonLogLimit(t *testing.T) {
	var buf bytes.Buffer
	log := NewLogger(config.Log{Level: "info", Format: "text"}, &buf)
	audit := AuditLogger(log)
	for i := 0; i < 20000; i++ {
		log.Info("agent text", "part", "bridge")
		if i%100 == 0 {
			audit.Info("observation sent", "audit", "observation.sent", "kind", "nfc")
		}
	}
	out := buf.String()
	if n := strings.Count(out, "audit=observation.sent"); n != 200 {
		t.Errorf("%d of 200 audit lines written", n)
	}
	// The loop runs in well under the seconds a few more would refill.
	if n := strings.Count(out, `msg="agent text"`); n < journallog.DefaultBurst || n > 2*journallog.DefaultBurst {
		t.Errorf("%d of 20000 ordinary lines written; the limit allows a burst of %d", n, journallog.DefaultBurst)
	}
}
