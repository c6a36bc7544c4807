package kiosk

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"net/netip"
	"os"
	"strconv"
	"strings"
)

// errNoPeer is peerUID's error for a connection the socket tables do not
// list (it ended, or it is not TCP on this machine).
var errNoPeer = errors.New("kiosk: the connection's other end is not in the socket table")

// peerUID returns the account that owns the client end of a loopback TCP
// connection: the socket whose local address is the client's and whose
// remote address is the server's, in the kernel's socket tables. Any
// local process can read the page and its token; only this tells the
// kiosk's own browser apart from them, and it hands no secret around.
func peerUID(server, client netip.AddrPort) (uint32, error) {
	server = netip.AddrPortFrom(server.Addr().Unmap(), server.Port())
	client = netip.AddrPortFrom(client.Addr().Unmap(), client.Port())
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		uid, err := findSocket(table, client, server)
		if err == nil {
			return uid, nil
		}
		if !errors.Is(err, errNoPeer) {
			return 0, err
		}
	}
	return 0, errNoPeer
}

func findSocket(table string, local, remote netip.AddrPort) (uint32, error) {
	f, err := os.Open(table)
	if errors.Is(err, os.ErrNotExist) {
		return 0, errNoPeer
	}
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // the header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		f := strings.Fields(sc.Text())
		if len(f) < 8 {
			continue
		}
		l, err1 := parseSockAddr(f[1])
		r, err2 := parseSockAddr(f[2])
		if err1 != nil || err2 != nil || l != local || r != remote {
			continue
		}
		uid, err := strconv.ParseUint(f[7], 10, 32)
		if err != nil {
			return 0, err
		}
		return uint32(uid), nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errNoPeer
}

// parseSockAddr reads "0100007F:1F90": the address as the kernel's 32-bit
// words in this machine's byte order, then the port.
func parseSockAddr(s string) (netip.AddrPort, error) {
	a, p, ok := strings.Cut(s, ":")
	raw, err := hex.DecodeString(a)
	port, perr := strconv.ParseUint(p, 16, 16)
	if !ok || err != nil || perr != nil || (len(raw) != 4 && len(raw) != 16) {
		return netip.AddrPort{}, errors.New("kiosk: bad socket address " + s)
	}
	b := make([]byte, len(raw))
	for i := 0; i < len(raw); i += 4 {
		binary.NativeEndian.PutUint32(b[i:], binary.BigEndian.Uint32(raw[i:]))
	}
	addr, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(addr.Unmap(), uint16(port)), nil
}
