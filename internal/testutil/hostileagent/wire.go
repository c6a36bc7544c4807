package hostileagent

import (
	"bufio"
	"crypto/sha1"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// WebSocket opcodes (RFC 6455 §5.2).
const (
	opContinuation = 0x0
	opText         = 0x1
	opBinary       = 0x2
	opClose        = 0x8
	opPing         = 0x9
	opPong         = 0xA
)

// maxReadMessage bounds what the agent buffers from one client message. It is
// far above the 0.1 frame bound on purpose: the agent records what the client
// sent, it does not police it.
const maxReadMessage = 1 << 20

// wsGUID is the fixed key suffix of the opening handshake (RFC 6455 §1.3).
const wsGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// acceptKey is the Sec-WebSocket-Accept value for a client key.
func acceptKey(key string) string {
	h := sha1.Sum([]byte(key + wsGUID))
	return base64.StdEncoding.EncodeToString(h[:])
}

// upgrade answers a WebSocket opening handshake by hand and returns the raw
// connection. Refusals are plain HTTP errors written before hijacking.
func upgrade(w http.ResponseWriter, r *http.Request) (net.Conn, *bufio.Reader, error) {
	if !headerHas(r.Header, "Connection", "upgrade") || !headerHas(r.Header, "Upgrade", "websocket") {
		http.Error(w, "hostileagent: a WebSocket upgrade is required here", http.StatusBadRequest)
		return nil, nil, errors.New("not a WebSocket upgrade")
	}
	key := r.Header.Get("Sec-WebSocket-Key")
	if key == "" {
		http.Error(w, "hostileagent: Sec-WebSocket-Key is missing", http.StatusBadRequest)
		return nil, nil, errors.New("no Sec-WebSocket-Key")
	}
	nc, rw, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return nil, nil, fmt.Errorf("hijack: %w", err)
	}
	resp := "HTTP/1.1 101 Switching Protocols\r\n" +
		"Upgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Accept: " + acceptKey(key) + "\r\n\r\n"
	if _, err := nc.Write([]byte(resp)); err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, rw.Reader, nil
}

func headerHas(h http.Header, name, token string) bool {
	for _, v := range h.Values(name) {
		for _, part := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(part), token) {
				return true
			}
		}
	}
	return false
}

// frameHeader is the header of an unmasked server frame with FIN set and the
// given declared payload length, which need not match what follows.
func frameHeader(op byte, length uint64) []byte {
	b := []byte{0x80 | op}
	switch {
	case length < 126:
		b = append(b, byte(length))
	case length <= 0xFFFF:
		b = append(b, 126)
		b = binary.BigEndian.AppendUint16(b, uint16(length))
	default:
		b = append(b, 127)
		b = binary.BigEndian.AppendUint64(b, length)
	}
	return b
}

// appendFrame appends one complete unmasked server frame.
func appendFrame(b []byte, op byte, payload []byte) []byte {
	b = append(b, frameHeader(op, uint64(len(payload)))...)
	return append(b, payload...)
}

// frame is one client frame after unmasking.
type frame struct {
	fin     bool
	op      byte
	payload []byte
}

// readFrame reads one (masked) client frame.
func readFrame(r *bufio.Reader) (frame, error) {
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return frame{}, err
	}
	f := frame{fin: h[0]&0x80 != 0, op: h[0] & 0x0F}
	masked := h[1]&0x80 != 0
	n := uint64(h[1] & 0x7F)
	switch n {
	case 126:
		var e [2]byte
		if _, err := io.ReadFull(r, e[:]); err != nil {
			return frame{}, err
		}
		n = uint64(binary.BigEndian.Uint16(e[:]))
	case 127:
		var e [8]byte
		if _, err := io.ReadFull(r, e[:]); err != nil {
			return frame{}, err
		}
		n = binary.BigEndian.Uint64(e[:])
	}
	if n > maxReadMessage {
		return frame{}, fmt.Errorf("client frame declares %d bytes", n)
	}
	var mask [4]byte
	if masked {
		if _, err := io.ReadFull(r, mask[:]); err != nil {
			return frame{}, err
		}
	}
	f.payload = make([]byte, n)
	if _, err := io.ReadFull(r, f.payload); err != nil {
		return frame{}, err
	}
	if masked {
		for i := range f.payload {
			f.payload[i] ^= mask[i%4]
		}
	}
	return f, nil
}

// message is one complete client data message, or a close.
type message struct {
	op      byte
	payload []byte
}

// wsConn is one hijacked connection. Writes are serialized by mu, because
// the reader answers pings and closes while a mode's script writes events.
type wsConn struct {
	nc net.Conn
	br *bufio.Reader

	mu    sync.Mutex
	raw   bool // the output stream is no longer framed: send no replies
	wrote bool // a close frame was sent
}

func (c *wsConn) write(b []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := c.nc.Write(b)
	return err
}

// reply writes a control frame unless the stream has gone raw (hugeframe:
// we are inside a declared 1 GiB payload, a frame now would be payload).
func (c *wsConn) reply(op byte, payload []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.raw || (op == opClose && c.wrote) {
		return nil
	}
	if op == opClose {
		c.wrote = true
	}
	_, err := c.nc.Write(appendFrame(nil, op, payload))
	return err
}

// readMessage reads the next data message, assembling fragments, answering
// pings, and returning closes as a message with op opClose. Pongs are
// counted by the caller through onPong.
func (c *wsConn) readMessage(onPong func()) (message, error) {
	var m message
	for {
		f, err := readFrame(c.br)
		if err != nil {
			return message{}, err
		}
		switch f.op {
		case opPing:
			if err := c.reply(opPong, f.payload); err != nil {
				return message{}, err
			}
			continue
		case opPong:
			onPong()
			continue
		case opClose:
			return message{op: opClose, payload: f.payload}, nil
		case opContinuation:
			if m.op == 0 {
				return message{}, errors.New("continuation without a first fragment")
			}
		case opText, opBinary:
			m.op = f.op
		default:
			return message{}, fmt.Errorf("unknown opcode %#x", f.op)
		}
		if len(m.payload)+len(f.payload) > maxReadMessage {
			return message{}, errors.New("client message over 1 MiB")
		}
		m.payload = append(m.payload, f.payload...)
		if f.fin {
			return m, nil
		}
	}
}

// closeFrame encodes a close payload: status code and reason.
func closeFrame(code uint16, reason string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, code), reason...)
}
