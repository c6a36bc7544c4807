package vpcd

import (
	"net"
	"syscall"
)

// quickAck re-enables TCP_QUICKACK, which Linux clears after each use. The
// vpcd driver writes the length and the payload of a message in two sends,
// so with Nagle on its side and delayed ACKs on ours every command stalls
// 40 ms; acknowledging at once keeps the virtual reader as fast as a real one.
func quickAck(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_QUICKACK, 1)
	})
}
