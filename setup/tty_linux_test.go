//go:build linux

package setup

import (
	"os"
	"syscall"
	"testing"
	"unsafe"
)

const echoFlag = syscall.ECHO

func lflag(t *testing.T, f *os.File) uint32 {
	t.Helper()
	var tio syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&tio))); e != 0 {
		t.Fatal(e)
	}
	return tio.Lflag
}
