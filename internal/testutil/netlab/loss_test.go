package netlab_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/netlab"
)

// The kiosk and the reference agent in two namespaces with pct % random
// loss each way: the walkthrough is replayed and push-to-talk turns are
// held, and the figures (set-up, replay time, audio packets through each
// way, frames recovered through FEC) are logged. ACBRIDGE_NETLAB_LOSS
// ("0 2 5 10 20") replaces the percentages (bench/netloss.sh);
// ACBRIDGE_NETLAB_NO_FEC=1 encodes the agent's voice without in-band FEC,
// to see the test fail.
func TestVoiceUnderLoss(t *testing.T) {
	pcts := []int{0, 5, 10}
	if env := os.Getenv("ACBRIDGE_NETLAB_LOSS"); env != "" {
		pcts = nil
		for _, f := range strings.Fields(env) {
			n, err := strconv.Atoi(f)
			if err != nil || n < 0 || n > 100 {
				t.Fatalf("ACBRIDGE_NETLAB_LOSS: %q is not a percentage", f)
			}
			pcts = append(pcts, n)
		}
	}
	for _, pct := range pcts {
		t.Run(pctName(pct), func(t *testing.T) {
			t.Parallel()
			l := netlab.New(t)
			url, ca, agentProc := agentWith(t, l, agentArgs{NoFEC: os.Getenv("ACBRIDGE_NETLAB_NO_FEC") == "1"})
			l.Loss(pct)
			r := kioskIn(t, l, kioskArgs{URL: url, CAFile: ca, Replays: 3, Turns: 3}, 150*time.Second)
			if r.Err != "" {
				t.Fatalf("kiosk: %s\nagent:\n%s", r.Err, agentProc.Log())
			}
			got, _ := heard(t, agentProc.Log())
			micFrac := float64(got) / float64(r.MicSent)
			replyFrac := float64(r.ReplyRecv) / float64(r.ReplyRecv+r.ReplyLost)
			delivered := float64(r.ReplyRecv+r.Recovered) / float64(r.ReplyRecv+r.ReplyLost)
			t.Logf("loss %d %%: set-up median %.0f ms %v; replay median %.0f ms %v (%d failed %v); mic packets %d/%d (%.1f %%); agent packets %d of %d (%.1f %%, %d with an FEC copy), %d recovered by FEC, %d concealed: %.1f %% delivered",
				pct, median(r.SetupMs), r.SetupMs, median(r.ReplayMs), r.ReplayMs, len(r.ReplayFails), r.ReplayFails,
				got, r.MicSent, 100*micFrac, r.ReplyRecv, r.ReplyRecv+r.ReplyLost, 100*replyFrac, r.WithFEC, r.Recovered, r.Concealed, 100*delivered)
			if len(r.ReplayFails) > 0 {
				t.Errorf("replays failed: %v", r.ReplayFails)
			}
			// The agent's voice carries FEC copies (SILK adds them to
			// frames of speech only), whatever the loss drew: without
			// them no lost frame can be recovered.
			if r.WithFEC*3 < r.ReplyRecv {
				t.Errorf("%d of %d agent packets carry an in-band FEC copy; want at least a third", r.WithFEC, r.ReplyRecv)
			}
		})
	}
}

func pctName(pct int) string { return fmt.Sprintf("%dpct", pct) }

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
