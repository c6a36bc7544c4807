package agent

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// Tests for clauses of the spec that no other test covered on its own
// (docs/conformance.md names the clause of each).

// P20: "A scan, intent:"remember", an image, or generic assent without a
// current proposal is insufficient" for a persistent write.
func TestNothingStoredWithoutProposal(t *testing.T) {
	c := startSession(t, startAgent(t, nil), both...)
	a := ref("router")
	remember := object(a)
	remember.Intent = "remember"
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: remember})
	check(t, c.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text, "Unknown object; no association stored.")
	photo := *photoObs(t)
	photo.Intent = "remember"
	c.send(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: c.nextTurn(), Observation: &photo})
	check(t, c.expect(protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventRunCompleted)[1].Event.Text, "Received the photo; nothing stored.")
	for _, assent := range []string{"yes", "ok, remember it", "confirm"} {
		check(t, c.say(assent), textGeneric)
	}
	check(t, c.say("confirm object"), "No current proposal; nothing stored.")
	check(t, c.scan(a), "This object remains unknown.")
}

// P9: "Never automatically fetch an HTTPS object reference." The reference
// is stored and matched as an opaque string; its server sees nothing.
func TestHTTPSReferenceNeverFetched(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	ref := srv.URL + "/objects/router?x=1"
	c := startSession(t, startAgent(t, nil), both...)
	check(t, c.scan(ref), "Unknown object; no association stored.")
	c.say("teach object Router")
	c.say("confirm object")
	check(t, c.scan(ref), "This is Router.")
	if n := hits.Load(); n != 0 {
		t.Fatalf("the agent fetched the object reference %d times", n)
	}
}
