package client_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
)

// When the policy refuses every candidate of the answer and the agent's
// checks reveal no other address, the dial fails after the short
// peer-reflexive grace, not at the total timeout, and says which
// candidates were refused and why.
func TestWebRTCEveryCandidateRefused(t *testing.T) {
	f := clienttest.NewRTCFake(t)
	f.Lite = true
	f.OnAnswer = clienttest.RefusedCandidates
	ag, err := client.Discover(context.Background(), f.Srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = ag.Dial(context.Background())
	if !errors.Is(err, client.ErrPolicy) {
		t.Fatalf("got %v, want a policy refusal", err)
	}
	for _, want := range []string{
		"refused every ICE candidate the agent offered",
		"10.0.0.5 is a private address",
		"64:ff9b::a00:5 is a NAT64 address for 10.0.0.5",
		"or at loopback under the local-development policy",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	t.Logf("after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("failed after %v; the total timeout is 60 s", d)
	}
}

// Refused candidates in the answer do not doom a connection the agent's
// own checks can carry: the peer-reflexive address they reveal (loopback,
// allowed under the local-development policy) connects.
func TestWebRTCPeerReflexiveAfterRefusedCandidates(t *testing.T) {
	f := clienttest.NewRTCFake(t)
	f.OnAnswer = clienttest.RefusedCandidates
	ag, err := client.Discover(context.Background(), f.Srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := ag.Dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tr.Close(nil)
}

// A candidate the policy allows that never answers still runs to the total
// timeout, and the error lists the candidates that were refused beside it.
func TestWebRTCTimeoutNamesRefusedCandidates(t *testing.T) {
	f := clienttest.NewRTCFake(t)
	f.Lite = true
	f.OnAnswer = func(sdp string) string {
		sdp = regexp.MustCompile(`(a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1) \d+`).ReplaceAllString(sdp, "$1 9")
		return strings.Replace(sdp, "a=candidate:", "a=candidate:99 1 udp 100 169.254.169.254 4000 typ host\r\na=candidate:", 1)
	}
	ag, err := client.Discover(context.Background(), f.Srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ag.Dial(context.Background())
	if err == nil || !strings.Contains(err.Error(), "was not up within 2s") || !strings.Contains(err.Error(), "169.254.169.254 is a link-local address") {
		t.Fatalf("got %v", err)
	}
}
