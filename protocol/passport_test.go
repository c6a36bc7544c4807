package protocol

import (
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
