package protocol

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParsePassport(t *testing.T) {
	good := `{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:abc","label":"Workshop router",
	  "facts":[{"name":"room","value":"workshop"}],"actions":[{"id":"reboot","title":"Reboot","requiresConfirmation":true}]}`
	if _, err := ParsePassport([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{
		strings.Replace(good, `"requiresConfirmation":true`, `"requiresConfirmation":false`, 1),
		strings.Replace(good, `"urn:agentcall:object:abc"`, `"javascript:x()"`, 1),
		strings.Replace(good, `"Workshop router"`, `"`+strings.Repeat("x", 257)+`"`, 1),
		`{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:abc"}`,
		`not json`,
	} {
		_, err := ParsePassport([]byte(bad))
		wantCode(t, err, CodePassportSchema)
	}
}

// "The optional passport is a bounded reference projection, not private
// history or credentials", and "additive optional fields may be introduced
// in 0.1": members outside the projection are accepted and dropped, so
// that nothing in them is kept, shown or forwarded; the size bound applies
// before parsing.
func TestParsePassportProjection(t *testing.T) {
	base := `{"schemaVersion":"0.1","objectRef":"urn:agentcall:object:abc","label":"Router"`
	for _, extra := range []string{
		`,"credentials":{"password":"hunter2"}}`,
		`,"history":[{"at":"2026-01-01T00:00:00Z","what":"opened"}]}`,
		`,"facts":[{"name":"n","value":"v","secret":"s"}]}`,
		`,"actions":[{"id":"a","title":"A","requiresConfirmation":true,"run":"rm -rf /"}]}`,
	} {
		p, err := ParsePassport([]byte(base + extra))
		if err != nil {
			t.Fatalf("%s: %v", extra, err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, kept := range []string{"credentials", "hunter2", "history", "opened", "secret", "rm -rf"} {
			if strings.Contains(string(b), kept) {
				t.Errorf("%s: the parsed passport keeps %q: %s", extra, kept, b)
			}
		}
	}
	huge := []byte(base + `,"description":"` + strings.Repeat("x", 1<<20) + `"}`)
	_, err := ParsePassport(huge)
	wantCode(t, err, CodePassportSchema)
	if err == nil || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("1 MiB passport: %v; want the size bound before parsing", err)
	}
}
