package netlab_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/internal/testutil/netlab"
)

// Behind a firewall that drops all UDP and opens only TCP 443, the kiosk
// has no path to the agent's audio without TURN, and says so (the
// agent.nopath problem, naming agent.ice_servers); with coturn on TLS 443
// as its ICE server, relay only, the walkthrough passes and audio flows
// both ways through the relay.
func TestTURNThroughFirewall(t *testing.T) {
	t.Parallel()
	l := netlab.New(t)
	url, caFile, agentProc := agentIn(t, l)
	dir := t.TempDir()
	// The TURN server's certificate from the agent's CA, which the kiosk
	// trusts as a system root.
	ca := clienttest.NewCA(t)
	turnCA, cert, key := ca.WriteFiles(t, dir, netlab.TURNAddr.String())
	const password = "turn-secret-4711"
	l.TURN(cert, key, password)
	trust := filepath.Join(dir, "roots.pem")
	concat(t, trust, caFile, turnCA)
	l.Firewall()

	t.Run("without TURN", func(t *testing.T) {
		r := kioskIn(t, l, kioskArgs{URL: url, CAFile: caFile, Replays: 1}, 60*time.Second)
		if len(r.ReplayFails) != 1 || !strings.Contains(r.ReplayFails[0], "no network path to the agent's audio; a TURN server on port 443 is needed: agent.ice_servers") {
			t.Fatalf("dial without TURN: %v", r.ReplayFails)
		}
		if !slices.Equal(r.Lasting, []string{client.WarnNoPath.Code}) {
			t.Fatalf("the dial's problem is %v, not %s", r.Lasting, client.WarnNoPath.Code)
		}
	})
	t.Run("TURN over TLS on 443", func(t *testing.T) {
		r := kioskIn(t, l, kioskArgs{URL: url, CAFile: caFile, Replays: 2, Turns: 2, Relay: true, TrustFile: trust,
			ICEServers: []client.ICEServer{{URLs: []string{"turns:" + netlab.TURNAddr.String() + ":443?transport=tcp"}, Username: netlab.TURNUser, Credential: password}}},
			90*time.Second)
		if r.Err != "" || len(r.ReplayFails) > 0 {
			t.Fatalf("through TURN: %s %v\nagent:\n%s", r.Err, r.ReplayFails, agentProc.Log())
		}
		got := heardSum(heard(t, agentProc.Log())).Packets
		t.Logf("through coturn TLS 443: set-up %v ms, replay %v ms; mic packets %d/%d, agent packets %d (%d lost)",
			r.SetupMs, r.ReplayMs, got, r.MicSent, r.ReplyRecv, r.ReplyLost)
		if got < int(r.MicSent)*9/10 || r.ReplyRecv == 0 {
			t.Fatalf("audio through TURN: the agent heard %d of %d packets; the kiosk got %d", got, r.MicSent, r.ReplyRecv)
		}
	})
}
