//go:build !linux

package accept

import "time"

// kernelClockSync is Linux only; elsewhere the sync state is unknown.
func kernelClockSync() (synced bool, maxErr time.Duration, ok bool) { return false, 0, false }
