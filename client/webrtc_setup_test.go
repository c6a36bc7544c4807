package client_test

import (
	"context"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/pion/datachannel"
)

// Answers whose candidates the client cannot use, as browser-based agents
// send them: headless Chromium lists only mDNS host names, and an answer
// written before ICE gathering lists none. The connection then comes up
// through the peer-reflexive address the agent's own checks reveal.
// The first two cases are the reference: loopback host candidates as the
// answer lists them, and the same addresses as server-reflexive ones (an
// agent behind a NAT that asked a STUN server).
var unusableCandidates = []struct {
	name   string
	answer func(string) string
}{
	{"host candidates (reference)", nil},
	{"server-reflexive candidates (reference)", func(sdp string) string {
		return regexp.MustCompile(`(?m)^(a=candidate:\S+ \d+ udp \d+ 127\.0\.0\.1 \d+) typ host`).
			ReplaceAllString(sdp, "$1 typ srflx raddr 0.0.0.0 rport 0")
	}},
	{"mDNS candidates only", func(sdp string) string {
		return regexp.MustCompile(`(?m)^(a=candidate:\S+ \d+ udp \d+) 127\.0\.0\.1 `).
			ReplaceAllString(sdp, "$1 0b6f2a4e-5c1d-4a8e-9f3b-2d7c6e1a9b40.local ")
	}},
	{"no candidates", func(sdp string) string {
		return regexp.MustCompile(`(?m)^a=(candidate:.*|end-of-candidates)\r?\n`).ReplaceAllString(sdp, "")
	}},
}

var loopbackHost = regexp.MustCompile(`127\.0\.0\.1 \d+ typ host`)

// setupRounds is how many set-ups each case times: enough for a median on
// a noisy machine, few enough to stay a unit test.
const setupRounds = 5

// Each case connects, and the time from Dial to session.established is
// printed (go test -v -run TestWebRTCSetupWithoutUsableCandidates): before
// the ICE acceptance waits were removed from rtcpeer.NewAPI, pion's 1 s
// wait for a peer-reflexive pair dominated it. The time is printed, not
// asserted (the machine is noisy); what is asserted is that the session
// comes up at all, which needs the peer-reflexive path.
func TestWebRTCSetupWithoutUsableCandidates(t *testing.T) {
	for _, c := range unusableCandidates {
		t.Run(c.name, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			if c.answer != nil {
				f.OnAnswer = func(sdp string) string {
					out := c.answer(sdp)
					if out == sdp || loopbackHost.MatchString(out) {
						t.Errorf("the answer's loopback host candidates were not replaced")
					}
					return out
				}
			}
			f.Script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
				if clienttest.Establish(ctx, t, raw) {
					// Hold the channel until the client ends the session.
					buf := make([]byte, 1<<17)
					for {
						if _, _, err := raw.ReadDataChannel(buf); err != nil {
							return
						}
					}
				}
			}
			ag := f.Discover(t)
			var took []time.Duration
			for range setupRounds {
				took = append(took, timeSetup(t, ag))
			}
			slices.Sort(took)
			t.Logf("Dial → session.established, %d set-ups: median %v, min %v, max %v",
				len(took), took[len(took)/2].Round(time.Millisecond), took[0].Round(time.Millisecond), took[len(took)-1].Round(time.Millisecond))
		})
	}
}

// timeSetup times one set-up, Dial → session.established, and ends the
// session.
func timeSetup(t testing.TB, ag *client.Discovered) time.Duration {
	t.Helper()
	ctx := context.Background()
	t0 := time.Now()
	tr, err := ag.DialWebRTC(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID()})
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(t0)
	s.End(ctx)
	return took
}
