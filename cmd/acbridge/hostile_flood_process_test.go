package main

import (
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/hostileagent"
)

// floodSeconds is how long TestHostileFlood floods: 20 s, the issue's
// figure, unless ACBRIDGE_FLOOD_SECONDS says otherwise or -short makes it
// 5 s, for a quick local run.
func floodSeconds(t *testing.T) time.Duration {
	if s := os.Getenv("ACBRIDGE_FLOOD_SECONDS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 25 {
			t.Fatalf("ACBRIDGE_FLOOD_SECONDS=%q: want whole seconds from 1 to 25", s)
		}
		return time.Duration(n) * time.Second
	}
	if testing.Short() {
		return 5 * time.Second
	}
	return 20 * time.Second
}

// A text.delta flood: the daemon's memory stays bounded, it cancels the run,
// and as the flood goes on it ends the session.
func TestHostileFlood(t *testing.T) {
	t.Parallel()
	const (
		peakBound = 64 << 10 // KiB: the target
		// raceGrowthBound applies instead of peakBound under the race
		// detector, whose runtime alone takes more than 64 MiB: what the
		// flood may add to the idle RSS, shadow memory included.
		raceGrowthBound = 48 << 10
		// maxLogLinesPerSession: established, a run, its cancel, the end,
		// the reconnect (start-up has 20 more).
		maxLogLinesPerSession = 10
		killBound             = 512 << 10 // KiB: stop a runaway daemon before it hurts the machine
	)
	ag, addr := serveHostile(t, hostileagent.Flood)
	d := newDaemon(t, t.TempDir(), addr)
	out := newCapped(d.out, 1<<20, canaries...)
	errs := newCapped(d.err, 1<<20, canaries...)
	d.cmd.Stdout, d.cmd.Stderr = out, errs
	d.start()
	pid := d.cmd.Process.Pid
	d.wait(d.out, "you can use:", 1)
	idle, _, _ := memKiB(pid)

	// Every session the daemon opens gets a flood of its own: the budget
	// that ends one must end the next, and memory must not pile up across
	// them, for the whole time.
	var typedAt time.Time
	floods := func() int { return count(ag.Types(), "user.turn") }
	retype := func() {
		_, _, tail, _ := out.stats()
		connected := strings.LastIndex(tail, "[connected to ") > strings.LastIndex(tail, "[not connected")
		if connected && floods() < ag.Connections() && time.Since(typedAt) > 300*time.Millisecond {
			d.say("hello flood")
			typedAt = time.Now()
		}
	}
	flood := floodSeconds(t)
	var peak int64
	var cancelAt, endAt time.Duration
	start := time.Now()
	ended := func() bool {
		types := ag.Types()
		if cancelAt == 0 && slices.Contains(types, "response.cancel") {
			cancelAt = time.Since(start)
		}
		if endAt == 0 && (slices.Contains(types, "session.end") || slices.ContainsFunc(ag.Conns(), func(c hostileagent.Conn) bool { return c.CloseCode != 0 })) {
			endAt = time.Since(start)
		}
		return endAt != 0
	}
	killed := false
	for time.Since(start) < flood && !killed {
		rss, hwm, err := memKiB(pid)
		if err != nil {
			break // the process is gone: reported below
		}
		peak = max(peak, rss, hwm)
		ended()
		retype()
		if killed = rss > killBound; killed {
			d.cmd.Process.Kill()
			break
		}
		time.Sleep(50 * time.Millisecond) // samples the daemon process's memory over the span
	}
	elapsed := time.Since(start)
	if _, hwm, err := memKiB(pid); err == nil {
		peak = max(peak, hwm)
	}
	select {
	case err := <-d.exited:
		d.exited <- err
		if !killed {
			t.Errorf("the daemon exited during the flood: %v", err)
		}
	default:
	}
	ended()
	ag.Close() // finish the connections so their counts are recorded
	var deltas int64
	for _, c := range ag.Conns() {
		deltas += c.Deltas
	}
	outN, _, outTail, outFound := out.stats()
	errN, errLines, _, errFound := errs.stats()
	t.Logf("flood %v of %v: RSS %.1f MiB connected before the flood, peak RSS %.1f MiB (VmHWM), %d flood(s) of %d text.delta of 4096 chars in all, first response.cancel %s, first session end %s, %d connection(s), stdout %d bytes, stderr %d bytes (%d lines)",
		elapsed.Round(100*time.Millisecond), flood, float64(idle)/1024, float64(peak)/1024, floods(), deltas, since(cancelAt), since(endAt),
		ag.Connections(), outN, errN, errLines)
	if killed {
		t.Errorf("the daemon passed %d MiB after %v of flood; killed", killBound>>10, elapsed.Round(100*time.Millisecond))
	}
	switch {
	case !raceDetector && peak > peakBound:
		t.Errorf("peak RSS %.1f MiB > %d MiB", float64(peak)/1024, peakBound>>10)
	case raceDetector && peak-idle > raceGrowthBound:
		t.Errorf("under the race detector the flood grew RSS by %.1f MiB (%.1f → %.1f); the bound is %d MiB (64 MiB without it)",
			float64(peak-idle)/1024, float64(idle)/1024, float64(peak)/1024, raceGrowthBound>>10)
	}
	if cancelAt == 0 {
		t.Errorf("the daemon never sent response.cancel; the agent received %q", compact(ag.Types()))
	}
	if endAt == 0 {
		t.Errorf("the daemon never ended the session (no session.end, no close frame); stdout tail:\n%s", lastLines(outTail, 5))
	}
	// One log line per event would let journald's rate limit drop the
	// audit lines: a run logs a few lines, not one per
	// text.delta.
	if maxLines := int64(20 + maxLogLinesPerSession*ag.Connections()); errLines > maxLines {
		t.Errorf("the daemon logged %d lines in %d sessions; want at most %d (a few per run, not one per event)", errLines, ag.Connections(), maxLines)
	}
	if flood >= 5*time.Second && floods() < 2 {
		t.Errorf("%d flood(s): the daemon never opened a second session to flood", floods())
	}
	if len(outFound)+len(errFound) > 0 {
		t.Errorf("canaries in the output: %q %q", outFound, errFound)
	}
}

func count(list []string, v string) int {
	n := 0
	for _, s := range list {
		if s == v {
			n++
		}
	}
	return n
}

// since formats the time an event took, "never" for zero.
func since(d time.Duration) string {
	if d == 0 {
		return "never"
	}
	return "after " + d.Round(time.Millisecond).String()
}
