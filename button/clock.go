package button

import "time"

// Clock is the time source of debouncing, long presses and blinking. Tests
// pass buttontest.Clock to step time by hand instead of sleeping.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, unless the
	// returned Timer is stopped first.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc call. Stop reports whether it prevented the
// call, as time.Timer.Stop does.
type Timer interface {
	Stop() bool
}

// SystemClock is the Clock of the time package.
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now() }

func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

var _ Clock = SystemClock{}
