package poll

import "time"

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
