package main

import (
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/hostileagent"
	"github.com/agentcall/acbridge/internal/wsframe"
)

// cpuTime is the user+system CPU time a process has used, from
// /proc/PID/stat (fields 14 and 15, in USER_HZ = 100 ticks a second).
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The command name (field 2) may hold spaces; count from after it.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	var utime, stime int64
	fmt.Sscan(f[11], &utime)
	fmt.Sscan(f[12], &stime)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// The daemon against an agent that declares a 1 GiB frame, and against one
// that floods pings: every connection is closed at once with the code that
// names why, the daemon goes on reconnecting with backoff, and the CPU it
// spends meanwhile is logged (the figures: ~90 % and ~60 % of a
// core before).
func TestRunDaemonAgainstHostileAgents(t *testing.T) {
	const window = 8 * time.Second
	for _, tc := range []struct {
		mode hostileagent.Mode
		code int
	}{{hostileagent.HugeFrame, 1009}, {hostileagent.PingFlood, 1008}} {
		t.Run(string(tc.mode), func(t *testing.T) {
			a := hostileagent.New(&hostileagent.Options{Mode: tc.mode})
			srv := httptest.NewServer(a)
			defer srv.Close()
			defer a.Close()
			d := startDaemon(t, t.TempDir(), srv.Listener.Addr().String())
			for deadline := time.Now().Add(30 * time.Second); len(a.Conns()) == 0; time.Sleep(50 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("no connection ended within 30 s\nstderr:\n%s", d.err.String())
				}
			}
			pid := d.cmd.Process.Pid
			c0, n0 := cpuTime(t, pid), len(a.Conns())
			time.Sleep(window)
			c1, n1 := cpuTime(t, pid), len(a.Conns())
			t.Logf("%s: daemon CPU %.1f %% of a core over %s, %d connections in the window",
				tc.mode, 100*float64(c1-c0)/float64(window), window, n1-n0)
			for i, c := range a.Conns() {
				if c.CloseCode != tc.code {
					t.Errorf("connection %d: close code %d, want %d", i, c.CloseCode, tc.code)
				}
				if tc.mode == hostileagent.HugeFrame && c.HugeToEnd > 4*time.Second {
					t.Errorf("connection %d: kept reading the refused frame %s", i, c.HugeToEnd)
				}
				if tc.mode == hostileagent.PingFlood && c.PongsReceived > wsframe.DefaultPingBurst+10 {
					t.Errorf("connection %d: %d pongs", i, c.PongsReceived)
				}
			}
			if n1 <= n0 {
				t.Errorf("the daemon did not reconnect within %s", window)
			}
		})
	}
}
