package bridge

import "time"

// SetEngagementTicks makes ticks the engagement's idle check: each value
// received runs one check, so a second send returns only once the first
// check is done.
func SetEngagementTicks(o *Options, ticks <-chan time.Time) { o.engagementTicks = ticks }
