//go:build linux && !(mips || mipsle || mips64 || mips64le || ppc64 || ppc64le || sparc64)

package evdev

import (
	"bytes"
	"os"
	"syscall"
	"unsafe"
)

// The generic _IOC layout of include/uapi/asm-generic/ioctl.h, used by x86,
// arm, arm64, riscv, loongarch and s390; the build constraint leaves out the
// ports with another layout rather than encode wrong requests there.
const (
	iocWrite = 1
	iocRead  = 2
)

func eviocRequest(dir, nr, size uintptr) uintptr {
	return dir<<30 | size<<16 | uintptr('E')<<8 | nr
}

// ioctl runs one ioctl through SyscallConn, because File.Fd would switch the
// descriptor to blocking mode and Close could then no longer interrupt a
// pending read.
func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// deviceName is EVIOCGNAME.
func deviceName(f *os.File) (string, error) {
	var buf [256]byte
	if err := ioctl(f, eviocRequest(iocRead, 0x06, uintptr(len(buf))), unsafe.Pointer(&buf[0])); err != nil {
		return "", err
	}
	name, _, _ := bytes.Cut(buf[:], []byte{0})
	return string(name), nil
}

// grab is EVIOCGRAB: while held, the device's events reach no other reader
// (console, X, Wayland), so a keypad's keys do not also type somewhere.
func grab(f *os.File) error {
	// EVIOCGRAB is declared _IOW(..., int) but takes the value itself, not a
	// pointer; non-zero grabs.
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, eviocRequest(iocWrite, 0x90, 4), 1)
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errno
	}
	return nil
}

// keyState is EVIOCGKEY: a bitmap of the keys held now, bit n for code n.
func keyState(f *os.File) ([]byte, error) {
	buf := make([]byte, (MaxKey+1)/8)
	if err := ioctl(f, eviocRequest(iocRead, 0x18, uintptr(len(buf))), unsafe.Pointer(&buf[0])); err != nil {
		return nil, err
	}
	return buf, nil
}
