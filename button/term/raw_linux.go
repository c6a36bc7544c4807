//go:build linux

package term

import (
	"os"
	"syscall"
	"unsafe"
)

// prepare returns a private, interruptible duplicate of f. The duplicate is
// made non-blocking so Go's poller serves it and a read deadline can
// interrupt it; os.Stdin itself is usually blocking, and a blocked read on it
// could never be stopped. With raw set and a terminal behind f, canonical
// mode and echo are turned off. restore puts the descriptor flags and the
// terminal settings back (they are shared with f) and closes the duplicate;
// it must run after the last read.
func prepare(f *os.File, raw bool) (in *os.File, restore func() error, isRaw bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, nil, false, err
	}
	fd := -1
	var errno syscall.Errno
	if cerr := rc.Control(func(orig uintptr) {
		var r uintptr
		r, _, errno = syscall.Syscall(syscall.SYS_FCNTL, orig, syscall.F_DUPFD_CLOEXEC, 0)
		fd = int(r)
	}); cerr != nil {
		return nil, nil, false, cerr
	}
	if errno != 0 {
		return nil, nil, false, errno
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if errno != 0 {
		syscall.Close(fd)
		return nil, nil, false, errno
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, nil, false, err
	}
	var saved *syscall.Termios
	if raw {
		var t syscall.Termios
		if ioctlTermios(fd, syscall.TCGETS, &t) == nil { // else not a terminal: raw does not apply
			nt := t
			nt.Lflag &^= syscall.ICANON | syscall.ECHO
			nt.Cc[syscall.VMIN] = 1
			nt.Cc[syscall.VTIME] = 0
			if err := ioctlTermios(fd, syscall.TCSETS, &nt); err != nil {
				syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, flags)
				syscall.Close(fd)
				return nil, nil, false, err
			}
			saved = &t
		}
	}
	in = os.NewFile(uintptr(fd), f.Name())
	restore = func() error {
		var err error
		if saved != nil {
			err = ioctlTermios(fd, syscall.TCSETS, saved)
		}
		if _, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_SETFL, flags); e != 0 && err == nil {
			err = e
		}
		if cerr := in.Close(); err == nil {
			err = cerr
		}
		return err
	}
	return in, restore, saved != nil, nil
}

func ioctlTermios(fd int, req uintptr, t *syscall.Termios) error {
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(t))); e != 0 {
		return e
	}
	return nil
}
