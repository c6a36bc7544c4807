package pn532

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// port is the serial line to the PN532, raw 115200 8N1, read through a
// small buffer with deadlines (the file is non-blocking, so Go's poller
// enforces them).
type port struct {
	f    *os.File
	path string
	buf  [256]byte
	r, w int
}

// openPort opens path as a raw 115200 8N1 line, exclusively (TIOCEXCL), so
// that a getty or ModemManager opening it later fails instead of eating the
// PN532's answers.
func openPort(path string) (*port, error) {
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	if err := rawMode(fd); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.ENOTTY) {
			return nil, fmt.Errorf("pn532: %s is not a serial port (%v): set nfc.device to the UART the board is wired to; `acbridge devices` lists them", path, err)
		}
		return nil, fmt.Errorf("pn532: configuring %s as 115200 8N1: %w", path, err)
	}
	if err := ioctlNoArg(fd, unix.TIOCEXCL); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("pn532: locking %s: %w", path, err)
	}
	p := &port{f: os.NewFile(uintptr(fd), path), path: path}
	p.flush()
	return p, nil
}

// openError says what to do about a port that does not open.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, unix.ENOENT), errors.Is(err, unix.ENODEV), errors.Is(err, unix.ENXIO):
		return fmt.Errorf("pn532: open %s: %w: the port is not there; on a Raspberry Pi enable the UART (raspi-config: Interface Options, Serial Port: login shell No, hardware Yes; or enable_uart=1 in config.txt) and reboot; otherwise set nfc.device to a port `acbridge devices` lists", path, err)
	case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
		return fmt.Errorf("pn532: open %s: %w: the service user needs group dialout (usermod -aG dialout acbridge) and, under systemd, DeviceAllow= for the port's class (the shipped unit has char-ttyAMA and char-ttyS; `systemctl cat acbridge` shows what is in force)", path, err)
	case errors.Is(err, unix.EBUSY):
		return fmt.Errorf("pn532: open %s: %w: another program holds the port: the acbridge service while it runs (systemctl stop acbridge before trying by hand), a serial console (raspi-config: Serial Port, login shell No) or another program (fuser -v %s)", path, err, path)
	}
	return fmt.Errorf("pn532: open %s: %w", path, err)
}

// rawMode sets the line to raw 115200 8N1 without flow control: the
// PN532's HSU has no RTS/CTS and any byte may be 0x11, 0x13 or 0x0D.
func rawMode(fd int) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON | unix.IXOFF | unix.IXANY
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.CSTOPB | unix.CRTSCTS | unix.CBAUD
	t.Cflag |= unix.CS8 | unix.CREAD | unix.CLOCAL | unix.B115200
	t.Ispeed, t.Ospeed = unix.B115200, unix.B115200
	t.Cc[unix.VMIN], t.Cc[unix.VTIME] = 1, 0
	return unix.IoctlSetTermios(fd, unix.TCSETS, t)
}

func ioctlNoArg(fd int, req uint) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), 0); e != 0 {
		return e
	}
	return nil
}

// flush drops whatever the PN532 sent that nobody asked for: the rest of
// a garbled answer, or an answer that came after its deadline.
func (p *port) flush() {
	p.r, p.w = 0, 0
	if sc, err := p.f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { _ = unix.IoctlSetInt(int(fd), unix.TCFLSH, unix.TCIFLUSH) })
	}
}

func (p *port) write(b []byte, deadline time.Time) error {
	if err := p.f.SetWriteDeadline(deadline); err != nil {
		return err
	}
	_, err := p.f.Write(b)
	return err
}

// readByte returns the next byte, waiting until deadline.
func (p *port) readByte(deadline time.Time) (byte, error) {
	if p.r == p.w {
		if err := p.f.SetReadDeadline(deadline); err != nil {
			return 0, err
		}
		n, err := p.f.Read(p.buf[:])
		if n <= 0 {
			if err == nil {
				err = syscall.EIO
			}
			return 0, err
		}
		p.r, p.w = 0, n
	}
	b := p.buf[p.r]
	p.r++
	return b, nil
}

// close releases the exclusive lock and the port.
func (p *port) close() error {
	if sc, err := p.f.SyscallConn(); err == nil {
		sc.Control(func(fd uintptr) { _ = ioctlNoArg(int(fd), unix.TIOCNXCL) })
	}
	return p.f.Close()
}
