package vmtest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"

	"github.com/agentcall/acbridge/nfc/vpcd"
)

// VSCard message types and codes (libcacard's vscard_common.h), the
// protocol QEMU's ccid-card-passthru speaks on its character device.
const (
	vscInit       = 1
	vscError      = 2
	vscReaderAdd  = 3
	vscATR        = 5
	vscCardRemove = 6
	vscAPDU       = 7
	vscVersion    = 2 // MAKE_VERSION(0, 0, 2)
	maxVSCPayload = 64 << 10
)

// Card is the smart card behind QEMU's emulated USB CCID reader: it
// listens on a Unix socket QEMU connects to (-chardev socket,path=…), adds
// the reader, and answers the guest's APDUs as a contactless tag with the
// inserted UID. Raw UIDs stay in this process: nothing here logs them.
type Card struct {
	ln       net.Listener
	commands atomic.Int64

	mu   sync.Mutex
	conn net.Conn
	uid  []byte
	err  error
	done chan struct{}
}

// ListenCard listens on path; QEMU must be started after it.
func ListenCard(path string) (*Card, error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	c := &Card{ln: ln, done: make(chan struct{})}
	go c.serve()
	return c, nil
}

// Commands counts the APDUs the guest sent.
func (c *Card) Commands() int { return int(c.commands.Load()) }

// Err is the protocol error that ended the connection, if any.
func (c *Card) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Card) serve() {
	defer close(c.done)
	conn, err := c.ln.Accept()
	if err != nil {
		c.fail(err)
		return
	}
	c.mu.Lock()
	c.conn = conn
	c.mu.Unlock()
	init := make([]byte, 12)
	copy(init, "VSCD")
	binary.BigEndian.PutUint32(init[4:], vscVersion)
	if err := c.send(vscInit, 0xffffffff, init); err != nil {
		c.fail(err)
		return
	}
	if err := c.send(vscReaderAdd, 0, []byte("acbridge-vm")); err != nil {
		c.fail(err)
		return
	}
	for {
		typ, _, payload, err := readVSC(conn)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) && !errors.Is(err, io.EOF) {
				c.fail(err)
			}
			return
		}
		switch typ {
		case vscAPDU:
			c.commands.Add(1)
			c.mu.Lock()
			uid := c.uid
			c.mu.Unlock()
			var resp []byte
			if uid == nil {
				resp = []byte{0x6A, 0x82}
			} else {
				resp = vpcd.Answer(payload, uid)
			}
			if err := c.send(vscAPDU, 0, resp); err != nil {
				c.fail(err)
				return
			}
		case vscError:
			if len(payload) == 4 && binary.BigEndian.Uint32(payload) != 0 {
				c.fail(fmt.Errorf("QEMU answered VSCard error %d", binary.BigEndian.Uint32(payload)))
			}
		}
	}
}

func (c *Card) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// Insert presents a tag with uid to the reader.
func (c *Card) Insert(uid []byte) error {
	c.mu.Lock()
	c.uid = append([]byte(nil), uid...)
	c.mu.Unlock()
	return c.send(vscATR, 0, vpcd.ATR(uid))
}

// Remove takes the tag away.
func (c *Card) Remove() error {
	c.mu.Lock()
	c.uid = nil
	c.mu.Unlock()
	return c.send(vscCardRemove, 0, nil)
}

func (c *Card) send(typ, reader uint32, payload []byte) error {
	c.mu.Lock()
	conn := c.conn
	c.mu.Unlock()
	if conn == nil {
		return errors.New("vmtest: QEMU has not connected to the card socket")
	}
	msg := make([]byte, 12+len(payload))
	binary.BigEndian.PutUint32(msg[0:], typ)
	binary.BigEndian.PutUint32(msg[4:], reader)
	binary.BigEndian.PutUint32(msg[8:], uint32(len(payload)))
	copy(msg[12:], payload)
	// One write per message: the reader goroutine's APDU answers and the
	// test's Insert/Remove share the connection.
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err := conn.Write(msg)
	return err
}

func readVSC(r io.Reader) (typ, reader uint32, payload []byte, err error) {
	var hdr [12]byte
	if _, err = io.ReadFull(r, hdr[:]); err != nil {
		return 0, 0, nil, err
	}
	typ = binary.BigEndian.Uint32(hdr[0:])
	reader = binary.BigEndian.Uint32(hdr[4:])
	n := binary.BigEndian.Uint32(hdr[8:])
	if n > maxVSCPayload {
		return 0, 0, nil, fmt.Errorf("VSCard message of %d bytes is over the %d QEMU sends", n, maxVSCPayload)
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(r, payload)
	return typ, reader, payload, err
}

// Close stops the card.
func (c *Card) Close() error {
	c.ln.Close()
	c.mu.Lock()
	if c.conn != nil {
		c.conn.Close()
	}
	c.mu.Unlock()
	<-c.done
	return nil
}
