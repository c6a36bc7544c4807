package conformancecmd

import (
	"context"
	"net/http"
	"testing"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
)

// Over WebRTC the offer names the trace's session id, unless that id
// cannot be a header value (the contract does not bound its characters):
// then the header is a random id and the replay still dials.
func TestDialReplaySessionIDHeader(t *testing.T) {
	fake := clienttest.NewRTCFake(t)
	ids := make(chan string, 2)
	fake.Srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			ids <- r.Header.Get(client.SessionIDHeader)
		}
		fake.Mux.ServeHTTP(w, r)
	})
	ag := fake.Discover(t)
	for _, c := range []struct{ trace, header string }{{"proof-1", "proof-1"}, {"proof 1 ✓", "proof 1 ✓"}, {"proof\n1", ""}, {" proof-1", ""}} {
		tr, err := dialReplay(context.Background(), ag, c.trace)
		if err != nil {
			t.Fatalf("%q: %v", c.trace, err)
		}
		tr.Close(nil)
		got := <-ids
		if c.header != "" && got != c.header || c.header == "" && (len(got) != 16 || got == c.trace) {
			t.Fatalf("trace id %q sent header %q", c.trace, got)
		}
	}
}
