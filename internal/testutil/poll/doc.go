// Package poll waits in tests on state that signals nothing: a real
// process (Chromium, Prometheus, pcscd, a child acbridge), the kernel's
// /proc, or the Go runtime's own counts and goroutine states (Parked). Everything that can signal is
// waited on by its event instead (channels, readiness lines, hooks,
// testing/synctest); this package is the one place that polls, on the
// real clock, bounded by a deadline.
package poll
