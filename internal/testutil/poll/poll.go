package poll

import (
	"runtime"
	"strings"
	"time"
)

// Until calls cond every interval until it reports true or timeout has
// passed, and returns cond's last answer. cond is called at once first,
// so state that already holds costs no interval.
func Until(timeout, interval time.Duration, cond func() bool) bool {
	if cond() {
		return true
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if cond() {
				return true
			}
		case <-deadline.C:
			return cond()
		}
	}
}

// Parked waits until a goroutine whose stack names fn is parked: blocked
// on a channel, a lock, the network poller or a system call. fn is a
// function as the runtime prints it, such as "(*Debouncer).Read"; a
// closure inlined into another function prints inside that function's
// name, so give it without its package. A test uses Parked to act on a
// call known to be blocked rather than one merely started.
func Parked(timeout time.Duration, fn string) bool {
	buf := make([]byte, 1<<20)
	return Until(timeout, time.Millisecond, func() bool {
		for buf = buf[:cap(buf)]; ; buf = make([]byte, 2*len(buf)) {
			if n := runtime.Stack(buf, true); n < len(buf) {
				buf = buf[:n]
				break
			}
		}
		for g := range strings.SplitSeq(string(buf), "\n\n") {
			head, stack, _ := strings.Cut(g, "\n")
			stack, _, _ = strings.Cut(stack, "\ncreated by ") // its frames, not its creator
			if strings.Contains(stack, fn) && !strings.Contains(head, "[running") && !strings.Contains(head, "[runnable") {
				return true
			}
		}
		return false
	})
}
