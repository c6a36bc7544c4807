package bridge_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
	"github.com/agentcall/acbridge/nfc/nfctest"
	"github.com/agentcall/acbridge/notice"
)

// hostileRig is a bridge (a virtual reader, no camera) talking to a hostile
// agent.
type hostileRig struct {
	t       *testing.T
	agent   *hostileagent.Agent
	out     *bridgetest.Transcript
	log     *bridgetest.Transcript
	texts   chan string
	buttons *buttontest.Source
	mu      sync.Mutex
	spoken  []string
}

func newHostileRig(t *testing.T, mode hostileagent.Mode, adjust func(*bridge.Options)) *hostileRig {
	r := &hostileRig{t: t, agent: hostileagent.New(&hostileagent.Options{Mode: mode}), out: &bridgetest.Transcript{},
		log: &bridgetest.Transcript{}, texts: make(chan string), buttons: buttontest.NewSource(&button.Options{Debounce: -1})}
	base := "http://" + hostileagent.Serve(t, r.agent)
	reader, err := nfctest.ForAgent(t.TempDir(), base)
	if err != nil {
		t.Fatal(err)
	}
	pol := bridgetest.Policy()
	pol.ReconnectMin, pol.ReconnectMax = 50*time.Millisecond, 200*time.Millisecond
	o := bridge.Options{
		Agent:   bridge.Agent{URL: base, Network: &client.Policy{AllowInsecureLocal: true}},
		Devices: bridge.Devices{Reader: reader, Buttons: r.buttons},
		Policy:  pol,
		Texts:   r.texts,
		Out:     r.out,
		Display: r.out.Display,
		Logger:  slogTo(r.log),
		Speak: func(s string) {
			r.mu.Lock()
			r.spoken = append(r.spoken, s)
			r.mu.Unlock()
		},
	}
	if adjust != nil {
		adjust(&o)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- bridge.New(o).Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("bridge did not stop")
		}
		r.buttons.Close()
	})
	return r
}

func (r *hostileRig) say(text string) {
	select {
	case r.texts <- text:
	case <-time.After(5 * time.Second):
		r.t.Fatalf("bridge did not take text %q", text)
	}
}

// waitType waits until the agent has received n messages of type typ.
func (r *hostileRig) waitType(typ string, n int) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if r.agent.Wait(ctx, func() bool { return count(r.agent.Types(), typ) >= n }) != nil {
		r.t.Fatalf("the agent received %d× %s, want %d; types %v\n%s", count(r.agent.Types(), typ), typ, n, r.agent.Types(), r.out.String())
	}
}

func count(xs []string, x string) int {
	n := 0
	for _, y := range xs {
		if y == x {
			n++
		}
	}
	return n
}

// A silent agent: the run gets response.cancel after the run timeout, the
// session ends (session.end) after the cancel grace, and the bridge
// reconnects; a line typed meanwhile is refused, not queued.
func TestSilentAgentFreesTheKiosk(t *testing.T) {
	r := newHostileRig(t, hostileagent.Silent, func(o *bridge.Options) {
		o.Policy.RunTimeout, o.Policy.CancelGrace = time.Second, 500*time.Millisecond
	})
	waitNotice(t, r.out, "the session", kind(notice.Connected), 1)
	start := time.Now()
	r.say("hello")
	r.say("and again")
	waitNotice(t, r.out, "the second line refused", func(n notice.Notice) bool {
		return n.Kind == notice.Refused && strings.Contains(n.Text, "still answering")
	}, 1)
	r.waitType("response.cancel", 1)
	waitNotice(t, r.out, "the session's end", kind(notice.Disconnected), 1)
	free := time.Since(start)
	waitNotice(t, r.out, "a new session", kind(notice.Connected), 2)
	t.Logf("silent run to a free kiosk: %.2f s to the session's end, %.2f s to the next session (run_timeout 1 s, cancel_grace 0.5 s)",
		free.Seconds(), time.Since(start).Seconds())
	r.waitType("session.end", 1)
	types := r.agent.Types()
	if n := count(types, "user.turn"); n != 1 {
		t.Errorf("the agent received %d user.turn, want 1 (the refused line is not kept): %v", n, types)
	}
	if i, j := slices.Index(types, "response.cancel"), slices.Index(types, "session.end"); i > j {
		t.Errorf("session.end before response.cancel: %v", types)
	}
}

// A long CANCEL frees the kiosk from a silent agent within the grace, long
// before the run timeout.
func TestLongCancelFreesTheKioskWithinTheGrace(t *testing.T) {
	r := newHostileRig(t, hostileagent.Silent, func(o *bridge.Options) {
		o.Policy.RunTimeout, o.Policy.CancelGrace = time.Minute, 500*time.Millisecond
	})
	waitNotice(t, r.out, "the session", kind(notice.Connected), 1)
	r.say("hello")
	r.waitType("user.turn", 1)
	start := time.Now()
	r.buttons.Tap(button.Cancel, true)
	waitNotice(t, r.out, "the session's end", kind(notice.Disconnected), 1)
	t.Logf("long CANCEL to the session's end: %.2f s (cancel_grace 0.5 s)", time.Since(start).Seconds())
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("the kiosk was freed after %v: the run timeout, not the grace", d)
	}
	r.waitType("session.end", 1)
}

// A text.delta flood: the run is cancelled past the budget, and the session
// ends with run.budget when the agent goes on.
func TestFloodIsCutOffByTheRunBudget(t *testing.T) {
	r := newHostileRig(t, hostileagent.Flood, func(o *bridge.Options) {
		o.Policy.RunBudget = client.RunBudget{Bytes: 256 << 10, Events: 1000}
	})
	waitNotice(t, r.out, "the session", kind(notice.Connected), 1)
	r.say("flood me")
	r.waitType("response.cancel", 1)
	waitNotice(t, r.out, "the session's end", func(n notice.Notice) bool {
		return n.Kind == notice.Disconnected && strings.Contains(n.Text, client.CodeRunBudget)
	}, 1)
	r.waitType("session.end", 1)
	deltas := r.out.CountNotices(kind(notice.AgentText))
	if deltas > 2*(256<<10)/4096+2 {
		t.Errorf("%d deltas shown: more than twice the budget", deltas)
	}
	if strings.Count(r.log.String(), "agent text") > 0 {
		t.Errorf("a log line per delta")
	}
	t.Logf("%d deltas shown before the session ended", deltas)
}

// Controls in the agent's text, speech, prompts and failure messages never
// reach the terminal, the display or TTS.
func TestAgentControlsNeverShown(t *testing.T) {
	r := newHostileRig(t, hostileagent.Controls, nil)
	waitNotice(t, r.out, "the session", kind(notice.Connected), 1)
	r.say("hello")
	waitNotice(t, r.out, "the agent's failure", kind(notice.Failure), 1)
	waitNotice(t, r.out, "the agent's prompt", kind(notice.Prompt), 1)
	r.mu.Lock()
	spoken := strings.Join(r.spoken, "|")
	r.mu.Unlock()
	if spoken == "" {
		t.Error("nothing was spoken: the test would not see controls in TTS")
	}
	var shown []string
	r.out.CountNotices(func(n notice.Notice) bool {
		shown = append(shown, n.Text, n.Code)
		return false
	})
	for name, s := range map[string]string{"stdout": r.out.String(), "display": strings.Join(shown, "|"), "tts": spoken} {
		for _, c := range s {
			if (c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f) {
				t.Errorf("%s carries control %U", name, c)
				break
			}
		}
	}
	for _, line := range strings.Split(r.out.String(), "\n") {
		if strings.HasPrefix(line, hostileagent.ForgedLine[:15]) && strings.Contains(line, "bank.example") {
			t.Errorf("a forged status line starts a line: %q", line)
		}
	}
}

// An agent that drops every session right after establishing it: the
// backoff does not start over, so connections stay few. At a tenth of the
// real scale (reconnect 0.1 s..6 s, stable_after 3 s) the bridge's own
// count of failures and the delays it draws show the backoff growing over
// five real connections (about 1.5 s), where a backoff started over at
// each session would stay at attempt 1 and 0.05–0.1 s.
func TestDroppingAgentIsNotRedialledEachSecond(t *testing.T) {
	r := newHostileRig(t, hostileagent.Drop, func(o *bridge.Options) {
		o.Policy.ReconnectMin, o.Policy.ReconnectMax, o.Policy.StableAfter = 100*time.Millisecond, 6*time.Second, 3*time.Second
	})
	waitNotice(t, r.out, "the session's end, in plain words", func(n notice.Notice) bool {
		return n.Kind == notice.Disconnected && strings.HasPrefix(n.Text, "the agent closed the connection")
	}, 1)
	const attempts = 5
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	var rs []bridgetest.Reconnect
	err := r.log.WaitText(ctx, func(log string) bool {
		rs, _ = bridgetest.Reconnects(log)
		return len(rs) >= attempts
	})
	if err != nil {
		t.Fatalf("%d reconnects of %d, the bridge stopped retrying:\n%s", len(rs), attempts, r.log.String())
	}
	rs = rs[:attempts]
	for i, rc := range rs {
		if rc.Attempt != i+1 {
			t.Errorf("reconnect %d counted as attempt %d: the backoff started over", i+1, rc.Attempt)
		}
	}
	if i := bridgetest.Waited(rs, 2*time.Millisecond); i >= 0 {
		t.Errorf("reconnect %d came %s after the one before, which drew %s", i+1, rs[i].At.Sub(rs[i-1].At), rs[i-1].Delay)
	}
	// The fifth delay is drawn from 0.8–1.6 s: half of 0.1 s doubled four times, and up to that.
	t.Logf("connections %d, delay before attempt %d: %s", r.agent.Connections(), attempts+1, rs[attempts-1].Delay)
	if d := rs[attempts-1].Delay; d < 800*time.Millisecond {
		t.Errorf("the delay after %d dropped sessions is %s, want at least 0.8 s", attempts, d)
	}
}
