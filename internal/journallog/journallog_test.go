package journallog

import (
	"log/slog"
	"testing"

	"github.com/coreos/go-systemd/v22/journal"
)

func TestRecordsBecomeFields(t *testing.T) {
	var got map[string]string
	var msg string
	var pri journal.Priority
	h := New(slog.LevelInfo)
	h.send = func(m string, p journal.Priority, vars map[string]string) error {
		msg, pri, got = m, p, vars
		return nil
	}
	log := slog.New(h).With("log", "audit")
	log.Info("observation sent", "audit", "observation.sent", "objectRef", "urn:agentcall:object:abc", "byteCount", 1234)
	want := map[string]string{"ACBRIDGE_LOG": "audit", "ACBRIDGE_AUDIT": "observation.sent",
		"ACBRIDGE_OBJECTREF": "urn:agentcall:object:abc", "ACBRIDGE_BYTECOUNT": "1234"}
	if msg != "observation sent" || pri != journal.PriInfo || len(got) != len(want) {
		t.Fatalf("%q %v %v", msg, pri, got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	log.Debug("not sent")
	if msg != "observation sent" {
		t.Error("a debug record passed an info handler")
	}
	if FieldName("", "a-b.c") != "ACBRIDGE_A_B_C" || FieldName("g", "k") != "ACBRIDGE_G_K" {
		t.Error("field names")
	}
}
