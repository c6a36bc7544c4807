// Package ptytest opens pseudo-terminals for tests of what a program does
// on a terminal (raw mode, echo), without a terminal emulator.
package ptytest

import (
	"os"
	"strconv"
	"syscall"
	"testing"
	"unsafe"

	"github.com/agentcall/acbridge/internal/testutil/needs"
)

// Open returns a pseudo-terminal's controlling side (what a terminal
// emulator holds: write to type, read to see the screen) and its terminal
// side (what the program reads and writes). Both close when t ends.
func Open(t testing.TB) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		needs.Unavailable(t, "no pseudo-terminals here: open /dev/ptmx: "+err.Error())
	}
	t.Cleanup(func() { ptmx.Close() })
	rc, _ := ptmx.SyscallConn()
	var n uint32
	var unlock int32
	var e1, e2 syscall.Errno
	rc.Control(func(fd uintptr) {
		_, _, e1 = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock)))
		_, _, e2 = syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n)))
	})
	if e1 != 0 || e2 != 0 {
		t.Fatalf("pty setup: %v %v", e1, e2)
	}
	tty, err = os.OpenFile("/dev/pts/"+strconv.FormatUint(uint64(n), 10), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}
