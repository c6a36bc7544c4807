package bridgetest

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Reconnect is one "agent session ended; reconnecting" line of the bridge's
// log: when it was logged, the delay drawn and the failures counted.
type Reconnect struct {
	At      time.Time
	Delay   time.Duration
	Attempt int
}

var reconnectLine = regexp.MustCompile(`(?m)^time=(\S+) .*msg="agent session ended; reconnecting".* in=(\S+) attempt=(\d+)`)

// Reconnects reads the reconnect lines of a log in slog's text form. From
// them a test sees the backoff at work (the delays drawn, the failures
// counted, and the time between two lines against the delay drawn) as its
// events happen, instead of counting connections over a span slept through.
func Reconnects(log string) ([]Reconnect, error) {
	var rs []Reconnect
	for _, m := range reconnectLine.FindAllStringSubmatch(log, -1) {
		at, err := time.Parse(time.RFC3339Nano, m[1])
		if err != nil {
			return nil, fmt.Errorf("reconnect line's time: %w", err)
		}
		d, err := time.ParseDuration(m[2])
		if err != nil {
			return nil, fmt.Errorf("reconnect line's delay: %w", err)
		}
		n, err := strconv.Atoi(m[3])
		if err != nil {
			return nil, fmt.Errorf("reconnect line's attempt: %w", err)
		}
		rs = append(rs, Reconnect{At: at, Delay: d, Attempt: n})
	}
	return rs, nil
}

// Waited reports the first reconnect of rs that came sooner after the one
// before than that one's delay (less slack, for the log's rounding), -1 if
// none did: a bridge that draws a delay but does not wait it out.
func Waited(rs []Reconnect, slack time.Duration) int {
	for i := 1; i < len(rs); i++ {
		if rs[i].At.Sub(rs[i-1].At) < rs[i-1].Delay-slack {
			return i
		}
	}
	return -1
}
