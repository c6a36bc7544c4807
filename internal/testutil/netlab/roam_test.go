package netlab_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net/netip"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/internal/testutil/netlab"
)

// roamAddr is the kiosk's address after the move.
var roamAddr = netip.MustParseAddr("10.77.0.4")

// In the middle of a session the kiosk's address is replaced (a roam, or
// the default route moving to another link): the kiosk restarts ICE over
// the SDP endpoint and the same session carries on, its audio both ways
// again within a bound. ACBRIDGE_NETLAB_NO_ICE_RESTART=1 turns restart off,
// to see the test fail (the session then ends at ICE disconnected).
func TestRoamKeepsSession(t *testing.T) {
	t.Parallel()
	l := netlab.New(t)
	url, ca, agentProc := agentIn(t, l)
	r := kioskIn(t, l, kioskArgs{URL: url, CAFile: ca, MoveTo: roamAddr.String(), NoICERestart: os.Getenv("ACBRIDGE_NETLAB_NO_ICE_RESTART") == "1"}, 55*time.Second)
	if r.Err != "" {
		t.Fatalf("kiosk: %s\nagent:\n%s", r.Err, agentProc.Log())
	}
	turns := 0
	for _, line := range strings.Split(agentProc.Log(), "\n") {
		if strings.HasPrefix(line, "turn ") {
			turns++
		}
	}
	got := heardSum(heard(t, agentProc.Log())).Packets
	t.Logf("address moved: path back after %.0f ms (%d ICE restart); agent heard %d turns, %d packets; kiosk got %d agent packets",
		r.RecoveredMs, r.Restarts, turns, got, r.ReplyRecv)
	// The kiosk sees its address go within half a second; the restart
	// takes a round trip and a check. The bound: 5 s.
	if r.RecoveredMs > 5000 {
		t.Errorf("the path came back %.0f ms after the move; the bound is 5 s", r.RecoveredMs)
	}
	if turns != 2 || got < 80 || r.ReplyRecv == 0 {
		t.Errorf("audio after the move: the agent heard %d turns, %d packets (want 2 turns, ≥ 80), the kiosk %d packets", turns, got, r.ReplyRecv)
	}
}

// An agent without ICE restart answers the kiosk's restart offer with a
// new peer connection: the kiosk ends the session at once, saying why,
// instead of trying until its window closes.
func TestRoamAgentWithoutRestart(t *testing.T) {
	t.Parallel()
	l := netlab.New(t)
	url, ca, _ := agentWith(t, l, agentArgs{NoICERestart: true})
	r := kioskIn(t, l, kioskArgs{URL: url, CAFile: ca, MoveTo: roamAddr.String()}, 55*time.Second)
	if !strings.Contains(r.Err, "does not support ICE restart") {
		t.Fatalf("kiosk: %q, want the session ended because the agent does not support ICE restart", r.Err)
	}
	if r.RecoveredMs > float64(client.DefaultICERestartWindow/time.Millisecond) {
		t.Errorf("the session ended %.0f ms after the move, after the restart window", r.RecoveredMs)
	}
}

// roam holds a turn, replaces the kiosk's address (the process runs in
// the kiosk's namespace), waits for the transport to restart ICE, and
// holds another turn on the same session.
func roam(a kioskArgs) (r kioskResult) {
	ctx := context.Background()
	fail := func(err error) kioskResult { r.Err = err.Error(); return r }
	roots, err := client.LoadCAFile(a.CAFile)
	if err != nil {
		return fail(err)
	}
	p := &client.Policy{AllowNetworks: []netip.Prefix{netlab.Network}, TLSConfig: &tls.Config{RootCAs: roots}}
	ag, err := client.Discover(ctx, a.URL, "", p)
	if err != nil {
		return fail(err)
	}
	mic, err := audio.NewMic(&audio.MicOptions{Device: audio.TestDevice})
	if err != nil {
		return fail(err)
	}
	defer mic.Close()
	o := &client.WebRTCOptions{Mic: mic, Sink: discardSink{}, NoICERestart: a.NoICERestart,
		NewDecoder: func() (client.Decoder, error) { return audio.NewDecoder() },
		Logger:     slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	tr, err := ag.DialWebRTC(ctx, o)
	if err != nil {
		return fail(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, &client.Options{SessionID: tr.SessionID(), ExplicitTurns: true})
	if err != nil {
		tr.Close(nil)
		return fail(err)
	}
	defer s.Close()
	ptt, err := client.NewPushToTalk(s, tr)
	if err != nil {
		return fail(err)
	}
	if err := oneTurn(ctx, s, tr, ptt); err != nil {
		return fail(fmt.Errorf("turn before the move: %w", err))
	}
	moved := time.Now()
	if err := moveAddr(netlab.KioskAddr.String(), a.MoveTo); err != nil {
		return fail(err)
	}
	err = waitRestart(s, tr, 20*time.Second)
	r.RecoveredMs = ms(time.Since(moved))
	if err != nil {
		return fail(err)
	}
	if err := oneTurn(ctx, s, tr, ptt); err != nil {
		return fail(fmt.Errorf("turn after the move: %w", err))
	}
	st := tr.Stats()
	r.MicSent, r.ReplyRecv, r.ReplyLost, r.Restarts = st.PacketsSent, st.PacketsReceived, st.PacketsLost, st.ICERestarts
	return r
}

// moveAddr takes the kiosk's address away and gives its link the new one,
// the way DHCP on a new network does.
func moveAddr(from, to string) error {
	for _, args := range [][]string{
		{"addr", "del", from + "/24", "dev", "lab1"},
		{"addr", "add", to + "/24", "dev", "lab1"},
	} {
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// waitRestart waits until the transport has recovered its path by an ICE
// restart, failing when the session ends first or d passes.
func waitRestart(s *client.Session, tr *client.WebRTCTransport, d time.Duration) error {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(d)
	for tr.Stats().ICERestarts == 0 {
		select {
		case <-tick.C:
		case <-s.Done():
			return fmt.Errorf("the session ended after the move: %v", s.Err())
		case <-timeout:
			return fmt.Errorf("no ICE restart within %v of the move", d)
		}
	}
	return nil
}
