package bridge_test

import (
	"context"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/notice"
)

// An agent whose address the network policy refuses (here its name
// resolves to a private address) cannot be fixed by retrying: the bridge
// says so once on the screen, in the person's words without the address,
// and once in the status line with the setting that fixes it, then retries
// only at the backoff ceiling. Nothing is dialled: the policy refuses the
// resolved address before any connection.
func TestLastingRefusalToldOnceAndRetriedAtTheCeiling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var lookups atomic.Int32
		var (
			mu      sync.Mutex
			notices []notice.Notice
			states  []bridge.State
		)
		var out strings.Builder
		pol := bridgetest.Policy()
		pol.ReconnectMax = time.Minute
		b := bridge.New(bridge.Options{
			Agent: bridge.Agent{URL: "https://agent.intranet", Network: &client.Policy{LookupIP: func(context.Context, string) ([]net.IP, error) {
				lookups.Add(1)
				return []net.IP{net.ParseIP("10.20.0.5")}, nil
			}}},
			Policy:  pol,
			Out:     &lockedWriter{mu: &mu, w: &out},
			Display: func(n notice.Notice) { mu.Lock(); notices = append(notices, n); mu.Unlock() },
			OnState: func(s bridge.State) { mu.Lock(); states = append(states, s); mu.Unlock() },
		})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- b.Run(ctx) }()
		// At the ceiling from the first failure: a delay drawn from 30–60 s
		// each time, where the growing backoff (0.5–1 s, 1–2 s, …) would
		// have made at least 6 attempts in the first minute and a half.
		time.Sleep(90*time.Second + time.Millisecond)
		synctest.Wait()
		if n := lookups.Load(); n < 2 || n > 4 {
			t.Errorf("%d attempts in 90 s, want 2 to 4 (one every 30–60 s)", n)
		}
		time.Sleep(10 * time.Minute) // synctest's clock
		synctest.Wait()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		if len(notices) != 1 || notices[0].Kind != notice.Disconnected || notices[0].Text != client.WarnNetwork.Person || notices[0].Code != client.WarnNetwork.Code {
			t.Errorf("notices %+v; want the one lasting notice", notices)
		}
		if got := out.String(); got != "[not connected: "+client.WarnNetwork.Person+"]\n" {
			t.Errorf("terminal:\n%s", got)
		}
		if len(states) != 1 || states[0].Err == nil || !strings.Contains(states[0].Err.Error(), "10.20.0.5 is a private address") || !strings.Contains(states[0].Err.Error(), "agent.allow_networks") {
			t.Errorf("states %v; want one naming the address and agent.allow_networks", states)
		}
	})
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
