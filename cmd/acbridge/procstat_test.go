package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

// memKiB returns VmRSS and VmHWM (the kernel's own peak of VmRSS) of a
// process from /proc/PID/status, in KiB.
func memKiB(pid int) (rss, hwm int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rss, _ = strconv.ParseInt(f[1], 10, 64)
		case "VmHWM:":
			hwm, _ = strconv.ParseInt(f[1], 10, 64)
		}
	}
	return rss, hwm, nil
}

// userHZ is the unit of utime and stime in /proc/PID/stat: USER_HZ, 100 on
// every Linux architecture Go supports (the kernel ABI fixes it, whatever
// CONFIG_HZ is).
const userHZ = 100

// cpuTime returns the user+system CPU time a process has used, from fields
// 14 and 15 of /proc/PID/stat (counted after the parenthesized command,
// which may contain spaces).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc/%d/stat", pid)
	}
	// f[0] is field 3 (state), so utime (14) is f[11] and stime (15) f[12].
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("unreadable /proc/%d/stat", pid)
	}
	return time.Duration(ut+st) * time.Second / userHZ, nil
}

// cpuShare measures the process's CPU use over window, as a share of one
// core.
func cpuShare(pid int, window time.Duration) (float64, error) {
	c0, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	time.Sleep(window) // the span of the process's CPU use that is measured
	c1, err := cpuTime(pid)
	if err != nil {
		return 0, err
	}
	return float64(c1-c0) / float64(time.Since(start)), nil
}

// capped passes the first limit bytes of a stream to a Transcript (enough
// for the lines a test waits for) and then keeps only the byte count, the
// last tailBytes, and which of a few watched strings ever appeared, even
// across writes: a flooded daemon's output must not pile up in the test.
type capped struct {
	t     *bridgetest.Transcript
	limit int64
	watch []string

	mu    sync.Mutex
	n     int64
	lines int64
	tail  []byte
	found map[string]bool
}

const tailBytes = 64 << 10

func newCapped(t *bridgetest.Transcript, limit int64, watch ...string) *capped {
	return &capped{t: t, limit: limit, watch: watch, found: map[string]bool{}}
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n < c.limit {
		c.t.Write(p[:min(int64(len(p)), c.limit-c.n)])
	}
	c.n += int64(len(p))
	c.lines += int64(bytes.Count(p, []byte{'\n'}))
	// The tail before p is kept long enough to find a watched string split
	// across two writes.
	keep := len(c.tail)
	c.tail = append(c.tail, p...)
	for _, w := range c.watch {
		from := max(0, keep-len(w)+1)
		if !c.found[w] && bytes.Contains(c.tail[from:], []byte(w)) {
			c.found[w] = true
		}
	}
	if len(c.tail) > tailBytes {
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-tailBytes:]...)
	}
	return len(p), nil
}

// stats returns the bytes and lines written, the tail, and the watched
// strings seen.
func (c *capped) stats() (n, lines int64, tail string, found []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, w := range c.watch {
		if c.found[w] {
			found = append(found, w)
		}
	}
	return c.n, c.lines, string(c.tail), found
}

// stopProcess sends SIGSTOP to pid and returns once every thread of it is
// stopped (state T in /proc/PID/task/*/stat): the signal is delivered
// thread by thread, and a thread still running on the other core can answer
// a message sent right after kill(2) returned. No event says when the
// group stop is complete, so the tasks are read each 5 ms, for at most 5 s.
func stopProcess(pid int) error {
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		return err
	}
	if !poll.Until(5*time.Second, 5*time.Millisecond, func() bool {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
		for _, p := range tasks {
			b, err := os.ReadFile(p)
			s := string(b)
			if err != nil || !strings.HasPrefix(strings.TrimSpace(s[strings.LastIndexByte(s, ')')+1:]), "T") {
				return false
			}
		}
		return len(tasks) > 0
	}) {
		return fmt.Errorf("process %d not stopped 5 s after SIGSTOP", pid)
	}
	return nil
}
