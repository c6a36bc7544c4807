package netlab_test

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/netlab"
)

// A dial whose ICE pair is up but whose DTLS and SCTP handshakes do not
// get through (every UDP datagram over 300 bytes dropped: STUN checks pass,
// the DTLS certificate flight does not) is not abandoned at the policy's
// total timeout (3 s here): once the handshakes get through, the dial
// completes and the walkthrough passes.
func TestSlowDataChannelNotAbandoned(t *testing.T) {
	t.Parallel()
	l := netlab.New(t)
	url, caFile, _ := agentIn(t, l)
	l.DropLargeUDP(300)
	cmd := l.Command(l.Kiosk, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleEnv+"=kiosk", argsEnv+"="+mustJSON(kioskArgs{URL: url, CAFile: caFile, Replays: 1, TotalTimeout: 3 * time.Second}))
	var out bytes.Buffer
	cmd.Stdout = &out
	p := l.Start(cmd)
	p.WaitContains(t, "ICE is up but the data channel is slow to open", 30*time.Second)
	l.RestoreUDP()
	select {
	case <-p.Exited():
	case <-time.After(60 * time.Second):
		t.Fatalf("the kiosk role did not finish:\n%s", p.Log())
	}
	var r kioskResult
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("kiosk output %q: %v\n%s", out.String(), err, p.Log())
	}
	if len(r.ReplayMs) != 1 || len(r.ReplayFails) > 0 {
		t.Fatalf("the slow dial: %v\n%s", r.ReplayFails, p.Log())
	}
	t.Logf("set-up %v ms (the policy's total timeout 3 s)", r.SetupMs)
}
