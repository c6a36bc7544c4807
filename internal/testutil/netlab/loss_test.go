package netlab_test

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/internal/testutil/netlab"
)

// toneHz is the test tone of the last turn: telephony's 1004 Hz, which
// SILK's activity detector takes for speech, so lost frames of it are
// recovered through FEC like speech (audio.TestToneThroughConcealment).
const toneHz = 1004

// The kiosk and the reference agent in two namespaces with pct % random
// loss each way: the walkthrough is replayed and push-to-talk turns of
// speech are held, then one of a tone, and the figures (set-up, replay
// time, audio packets through each way, frames recovered through FEC, the
// tone's frequency and SNR at the agent) are logged. Each direction's
// packets must carry FEC copies. ACBRIDGE_NETLAB_LOSS ("0 2 5 10 20")
// replaces the percentages (bench/netloss.sh); ACBRIDGE_NETLAB_JITTER
// ("30ms") adds a row without loss whose datagrams are held back by up to
// twice that, each way (Lab.Jitter); ACBRIDGE_NETLAB_DELAY=1 adds a turn
// that measures the mouth-to-ear delay each way, and
// ACBRIDGE_NETLAB_SPEECH=1 one of a sentence espeak-ng says (the bench's;
// they log a second line per row, and the delays added against the 0 %
// row's at the end); ACBRIDGE_NETLAB_NO_FEC=1
// encodes the agent's voice without in-band FEC,
// ACBRIDGE_NETLAB_NO_MIC_FEC=1 the kiosk's microphone, and
// ACBRIDGE_NETLAB_NO_NACK=1 leaves NACK out on both sides, to see the test
// fail.
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
	type row struct {
		pct    int
		jitter time.Duration
	}
	var rows []row
	for _, pct := range pcts {
		rows = append(rows, row{pct: pct})
	}
	if env := os.Getenv("ACBRIDGE_NETLAB_JITTER"); env != "" {
		d, err := time.ParseDuration(env)
		if err != nil || d <= 0 {
			t.Fatalf("ACBRIDGE_NETLAB_JITTER: %q is not a positive duration", env)
		}
		rows = append(rows, row{jitter: d})
	}
	measureDelay := os.Getenv("ACBRIDGE_NETLAB_DELAY") == "1"
	var speechWAV string
	if os.Getenv("ACBRIDGE_NETLAB_SPEECH") == "1" {
		speechWAV = spokenSentence(t, t.TempDir())
	}
	var (
		mu      sync.Mutex
		benches = map[string]bench{}
		order   []string
	)
	if measureDelay {
		// Cleanups run once every row has.
		t.Cleanup(func() { addedDelays(t, order, benches) })
	}
	for _, rw := range rows {
		pct := rw.pct
		name := pctName(pct)
		if rw.jitter > 0 {
			name = "jitter" + rw.jitter.String()
		}
		order = append(order, rowName(pct, rw.jitter))
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l := netlab.New(t)
			noNACK := os.Getenv("ACBRIDGE_NETLAB_NO_NACK") == "1"
			url, ca, agentProc := agentWith(t, l, agentArgs{NoFEC: os.Getenv("ACBRIDGE_NETLAB_NO_FEC") == "1", NoNACK: noNACK})
			l.Loss(pct)
			if rw.jitter > 0 {
				l.Jitter(rw.jitter)
			}
			ka := kioskArgs{URL: url, CAFile: ca, Replays: 3, Turns: 3, ToneHz: toneHz,
				NoFEC: os.Getenv("ACBRIDGE_NETLAB_NO_MIC_FEC") == "1", NoNACK: noNACK, Delay: measureDelay, SpeechWAV: speechWAV}
			r := kioskIn(t, l, ka, 150*time.Second)
			if r.Err != "" {
				t.Fatalf("kiosk: %s\nagent:\n%s", r.Err, agentProc.Log())
			}
			turns := heard(t, agentProc.Log())
			mic := heardSum(turns)
			micFrac := float64(mic.Packets) / float64(r.MicSent)
			micDelivered := float64(mic.Packets+mic.Recovered) / float64(r.MicSent)
			// Packets that overtook their turn's start reached the agent
			// too: what the voice path delivered.
			micThrough := float64(mic.Packets+mic.Before+mic.Recovered) / float64(r.MicSent)
			replyFrac := float64(r.ReplyRecv) / float64(r.ReplyRecv+r.ReplyLost)
			delivered := float64(r.ReplyRecv+r.Recovered) / float64(r.ReplyRecv+r.ReplyLost)
			// The tone's turn follows the three of speech.
			var tone agent.AudioTurn
			if len(turns) > 3 {
				tone = turns[3]
			}
			t.Logf("%s: set-up median %.0f ms %v; replay median %.0f ms %v (%d failed %v); mic packets %d/%d (%.1f %%, %d with an FEC copy, %d resent after a NACK), %d recovered by FEC, %d concealed: %.1f %% delivered in turns, %.1f %% with the %d before their turn's start; agent packets %d of %d (%.1f %%, %d with an FEC copy, %d resent after a NACK), %d recovered by FEC, %d concealed: %.1f %% delivered; jitter at the kiosk %.1f ms, at the agent %.1f ms; round trip kiosk %.1f ms, agent %.1f ms; tone %d Hz at the agent: %.2f Hz, %.1f dB SNR (%d lost, %d recovered, %d before its start); SCTP handshakes given up: kiosk %d, agent %d",
				rowName(pct, rw.jitter), median(r.SetupMs), r.SetupMs, median(r.ReplayMs), r.ReplayMs, len(r.ReplayFails), r.ReplayFails,
				mic.Packets, r.MicSent, 100*micFrac, mic.WithFEC, mic.Late, mic.Recovered, mic.Concealed, 100*micDelivered, 100*micThrough, mic.Before,
				r.ReplyRecv, r.ReplyRecv+r.ReplyLost, 100*replyFrac, r.WithFEC, r.Late, r.Recovered, r.Concealed, 100*delivered,
				r.JitterMs, ms(tone.Jitter), r.RTTMs, ms(tone.RTT),
				toneHz, tone.Levels.Dominant, tone.Levels.ToneSNR, tone.Lost, tone.Recovered, tone.Before, r.SCTPGiveUps, sctpGiveUps(agentProc.Log()))
			b := benchLine(t, rowName(pct, rw.jitter), r, turns, agentProc.Log(), ka)
			mu.Lock()
			benches[rowName(pct, rw.jitter)] = b
			mu.Unlock()
			if len(r.ReplayFails) > 0 {
				t.Errorf("replays failed: %v", r.ReplayFails)
			}
			// Both voices carry FEC copies (SILK adds them to frames of
			// speech only), whatever the loss drew: without them no lost
			// frame can be recovered.
			if r.WithFEC*3 < r.ReplyRecv {
				t.Errorf("%d of %d agent packets carry an in-band FEC copy; want at least a third", r.WithFEC, r.ReplyRecv)
			}
			if mic.WithFEC*3 < mic.Packets {
				t.Errorf("%d of %d microphone packets carry an in-band FEC copy; want at least a third", mic.WithFEC, mic.Packets)
			}
			// Lost packets come back: at 5 % loss and more, some of each
			// direction's were resent after a NACK and played in their
			// place, which nothing but NACK does here (netlab does not
			// reorder). Fewer than about 60 of a row's 320 packets
			// are lost at 10 %, so one sent again is all but certain.
			if pct >= 5 && (mic.Late == 0 || r.Late == 0) {
				t.Errorf("packets resent after a NACK in time to play: %d of the microphone's, %d of the agent's; want some each way", mic.Late, r.Late)
			}
			// The target, with NACK and FEC together: at up to 10 %
			// loss ≥ 98 % of each direction's frames arrive in time or are
			// recovered from a copy (100 % in each of seven runs at 10 %;
			// FEC alone gave 95.8 % and 97.6 %). The microphone's count
			// includes the packets that overtook their turn's start, which
			// the agent received but counts in no turn.
			if pct <= 10 && (micThrough < 0.98 || delivered < 0.98) {
				t.Errorf("delivered %.1f %% of the microphone's frames, %.1f %% of the agent's; want ≥ 98 %% each way", 100*micThrough, 100*delivered)
			}
			want := 4
			if ka.Delay {
				want++
			}
			if ka.SpeechWAV != "" {
				want++
			}
			if len(turns) != want {
				t.Fatalf("the agent heard %d turns; want %d", len(turns), want)
			}
			// A frame concealed rather than recovered (two lost in a row,
			// about one run in three at 10 %), or a longer gap left
			// silent, costs the tone 5–15 dB and can move its measured
			// frequency: both are asserted only where FEC recovered every
			// lost frame of it.
			if tone.Recovered == tone.Lost {
				if math.Abs(tone.Levels.Dominant-toneHz) > 1 || tone.Levels.ToneSNR < 20 {
					t.Errorf("tone at %.2f Hz, %.1f dB SNR with every lost frame recovered; want %d ± 1 Hz at ≥ 20 dB", tone.Levels.Dominant, tone.Levels.ToneSNR, toneHz)
				}
			}
		})
	}
}

// addedDelays logs each row's median mouth-to-ear delays less the 0 %
// row's, each way: what loss and jitter add.
func addedDelays(t *testing.T, order []string, benches map[string]bench) {
	clean, ok := benches[rowName(0, 0)]
	if !ok {
		return
	}
	for _, row := range order {
		b, ok := benches[row]
		if !ok || row == rowName(0, 0) || len(b.up) == 0 || len(b.down) == 0 || len(clean.up) == 0 || len(clean.down) == 0 {
			continue
		}
		t.Logf("added delay, %s: kiosk → agent %+.0f ms, agent → kiosk's speaker %+.0f ms (medians against loss 0 %%)",
			row, median(b.up)-median(clean.up), median(b.down)-median(clean.down))
	}
}

func pctName(pct int) string { return fmt.Sprintf("%dpct", pct) }

// rowName names a row in the log (bench/netloss.sh picks it up).
func rowName(pct int, jitter time.Duration) string {
	if jitter > 0 {
		return fmt.Sprintf("loss %d %%, jitter up to %v", pct, 2*jitter)
	}
	return fmt.Sprintf("loss %d %%", pct)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
