//go:build linux

package setup

import (
	"os"
	"syscall"
	"unsafe"
)

// echoOff turns off the echo of the terminal f, so a typed token is not
// shown; restore turns it back on. f not a terminal: an error, and the
// caller reads as it is.
func echoOff(f *os.File) (restore func(), err error) {
	fd := f.Fd()
	var t syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCGETS, uintptr(unsafe.Pointer(&t))); e != 0 {
		return nil, e
	}
	nt := t
	nt.Lflag &^= syscall.ECHO
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&nt))); e != 0 {
		return nil, e
	}
	return func() {
		syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TCSETS, uintptr(unsafe.Pointer(&t)))
	}, nil
}
