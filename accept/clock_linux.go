package accept

import (
	"syscall"
	"time"
)

// timeError is adjtimex's TIME_ERROR state: the clock is not synchronized
// (include/uapi/linux/timex.h).
const timeError = 5

// kernelClockSync reads the kernel's NTP state with adjtimex(2) (modes 0:
// read only, no privilege needed).
func kernelClockSync() (synced bool, maxErr time.Duration, ok bool) {
	var tx syscall.Timex
	state, err := syscall.Adjtimex(&tx)
	if err != nil {
		return false, 0, false
	}
	return state != timeError, time.Duration(tx.Maxerror) * time.Microsecond, true
}
