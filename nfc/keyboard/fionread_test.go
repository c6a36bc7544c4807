package keyboard

import (
	"os"
	"syscall"
	"unsafe"
)

// ioctlFIONREAD is how many bytes wait in the FIFO.
func ioctlFIONREAD(f *os.File, n *int) error {
	var v int32
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCINQ, uintptr(unsafe.Pointer(&v)))
	*n = int(v)
	if errno != 0 {
		return errno
	}
	return nil
}
