package vpcd

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Reader names of the two slots the Debian vpcd driver configures.
const (
	DefaultReader = "Virtual PCD 00 00"
	SecondReader  = "Virtual PCD 00 01"
)

// PortEnv names the environment variable holding the first slot's port when
// it is not the Debian default, 35963 (/etc/reader.conf.d/vpcd: CHANNELID
// 0x8C7B); the second slot listens one port above. scripts/pcscd.sh run sets
// it for the private pcscd of a test run, whose reader no one else uses.
const PortEnv = "ACBRIDGE_VPCD_PORT"

// Addresses of the two slots, from PortEnv when it holds a port.
var (
	DefaultAddr = slotAddr(0)
	SecondAddr  = slotAddr(1)
)

func slotAddr(slot int) string {
	port := 35963
	if p, err := strconv.Atoi(os.Getenv(PortEnv)); err == nil && p > 0 && p < 65535 {
		port = p
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(port+slot))
}

// MaxUIDLen bounds the identifier a virtual card presents (ISO/IEC 14443-3
// triple-size UIDs are the longest, 10 bytes).
const MaxUIDLen = 10

var (
	// ErrClosed is returned by every method after Close.
	ErrClosed = errors.New("vpcd: card closed")
	// ErrInserted is returned by Insert while the card is already inserted.
	ErrInserted = errors.New("vpcd: card already inserted; Remove it first")
	// ErrBadUID is returned by Insert for an empty or over-long UID.
	ErrBadUID = fmt.Errorf("vpcd: UID must be 1 to %d bytes", MaxUIDLen)
)

// Control bytes the driver sends as 1-byte messages.
const (
	ctrlOff   = 0x00
	ctrlOn    = 0x01
	ctrlReset = 0x02
	ctrlATR   = 0x04
)

// Card is one virtual card for one vpcd slot. The zero value is not usable;
// call New. Methods are safe for concurrent use.
type Card struct {
	addr     string
	commands atomic.Int64 // command APDUs received, over all insertions

	mu      sync.Mutex
	closed  bool
	refuse  uint16    // status word answered to GET DATA; 0 answers the UID
	pullN   int       // commands still to be answered by leaving the field
	pullAt  int       // 0, or 1 + the commands to answer before leaving the field once
	headers [][4]byte // CLA INS P1 P2 of every command APDU, in order
	session *session
}

// session is one insertion: one TCP connection to the driver.
type session struct {
	conn net.Conn
	uid  []byte
	atr  []byte
	mem  Memory
	seen chan struct{} // closed when the driver sent its first message
	done chan struct{} // closed when serve returned
}

// New returns a card for the vpcd slot listening at addr ("" means
// DefaultAddr). It does no I/O: connecting would already insert the card.
func New(addr string) *Card {
	if addr == "" {
		addr = DefaultAddr
	}
	return &Card{addr: addr}
}

// RandomUID returns a fresh ISO/IEC 14443-3 random UID: 4 bytes, the first
// 0x08, as phones emulating cards present.
func RandomUID() []byte {
	uid := make([]byte, 4)
	_, _ = rand.Read(uid) // crypto/rand.Read never fails (Go ≥ 1.24)
	uid[0] = 0x08
	return uid
}

// Insert connects a card presenting uid and returns once the driver has
// talked to it, that is once pcscd sees a card in the reader. A card whose
// UID is a random UID (see RandomUID) presents an ISO 14443-4 ATR, as a phone
// does; others present the PC/SC part 3 ATR of a MIFARE Classic 1K.
func (c *Card) Insert(ctx context.Context, uid []byte) error {
	return c.InsertTag(ctx, uid, Memory{})
}

// InsertTag is Insert of a tag with memory: a Type 2 image presents the
// PC/SC part 3 ATR of a MIFARE Ultralight (NTAG21x read the same way) and
// answers READ BINARY (FF B0); a Type 4 application presents an ISO 14443-4
// ATR and answers SELECT and READ BINARY of its NDEF files.
func (c *Card) InsertTag(ctx context.Context, uid []byte, mem Memory) error {
	if len(uid) == 0 || len(uid) > MaxUIDLen {
		return ErrBadUID
	}
	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return ErrClosed
	case c.session != nil:
		select {
		case <-c.session.done: // the driver hung up (pcscd stopped): gone already
		default:
			c.mu.Unlock()
			return ErrInserted
		}
	}
	c.mu.Unlock()

	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", c.addr)
	if err != nil {
		return fmt.Errorf("vpcd: connect to the vpcd driver at %s (is pcscd running with vsmartcard-vpcd? scripts/pcscd.sh start): %w", c.addr, err)
	}
	s := &session{
		conn: conn,
		uid:  append([]byte(nil), uid...),
		atr:  atrFor(uid, mem),
		mem:  mem,
		seen: make(chan struct{}),
		done: make(chan struct{}),
	}
	c.mu.Lock()
	if c.closed || (c.session != nil && !isDone(c.session)) {
		c.mu.Unlock()
		conn.Close()
		if c.closed {
			return ErrClosed
		}
		return ErrInserted
	}
	c.session = s
	c.mu.Unlock()
	go c.serve(s)

	select {
	case <-s.seen:
		return nil
	case <-s.done:
		return fmt.Errorf("vpcd: the driver at %s closed the connection before reading the card", c.addr)
	case <-ctx.Done():
		c.Remove()
		return fmt.Errorf("vpcd: the driver at %s did not poll the card: %w", c.addr, ctx.Err())
	}
}

// Inserted reports whether the card is connected to the driver.
func (c *Card) Inserted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session != nil && !isDone(c.session)
}

// Remove takes the card off the reader by disconnecting; pcscd notices at its
// next presence poll. Removing a card that is not inserted does nothing.
func (c *Card) Remove() {
	c.mu.Lock()
	s := c.session
	c.session = nil
	c.mu.Unlock()
	if s == nil {
		return
	}
	s.conn.Close()
	<-s.done
}

// RefuseGetData makes the card answer GET DATA (FF CA) with the status word
// sw, as a reader without PC/SC part 3 support does (0x6A81, 0x6D00). Zero
// restores the normal answer. It applies to the inserted card at once.
func (c *Card) RefuseGetData(sw uint16) {
	c.mu.Lock()
	c.refuse = sw
	c.mu.Unlock()
}

// PullAwayOnRead makes the next n command APDUs (GET DATA) go unanswered:
// the card resets the connection instead, as a tag pulled out of the field
// mid-read, so pcscd reports the transaction as failed ("scard:
// Transaction failed") and the card as gone. Zero
// restores normal answers.
func (c *Card) PullAwayOnRead(n int) {
	c.mu.Lock()
	c.pullN = max(n, 0)
	c.mu.Unlock()
}

// PullAwayAfter makes the card answer n more command APDUs and leave the
// field, as PullAwayOnRead does, at the one after them: a tag lifted while
// its memory is read.
func (c *Card) PullAwayAfter(n int) {
	c.mu.Lock()
	c.pullAt = max(n, 0) + 1
	c.mu.Unlock()
}

// Commands returns how many command APDUs (such as GET DATA) the card has
// answered since New: tests use it to prove a UID was not even read.
func (c *Card) Commands() int { return int(c.commands.Load()) }

// Headers returns the CLA INS P1 P2 of every command APDU answered since
// New, in order (headers only: no command carries tag data).
func (c *Card) Headers() [][4]byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([][4]byte(nil), c.headers...)
}

// Close removes the card; later calls return ErrClosed. Safe to call twice.
func (c *Card) Close() error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.Remove()
	return nil
}

func isDone(s *session) bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// serve answers the driver until it or Remove closes the connection.
func (c *Card) serve(s *session) {
	defer close(s.done)
	defer s.conn.Close()
	r := bufio.NewReader(s.conn)
	var seenOnce sync.Once
	for {
		msg, err := readMsg(r, func() { quickAck(s.conn) })
		if err != nil {
			return
		}
		seenOnce.Do(func() { close(s.seen) })
		var rsp []byte
		switch {
		case len(msg) == 1 && msg[0] == ctrlATR:
			rsp = s.atr
		case len(msg) == 1: // power on/off, reset: no answer expected
			continue
		case len(msg) == 0:
			continue
		default:
			c.commands.Add(1)
			c.mu.Lock()
			var h [4]byte
			copy(h[:], msg)
			c.headers = append(c.headers, h)
			refuse, pull := c.refuse, c.pullN > 0
			if pull {
				c.pullN--
			}
			if c.pullAt > 0 {
				c.pullAt--
				pull = pull || c.pullAt == 0
			}
			c.mu.Unlock()
			if pull {
				pullAway(s.conn)
				return
			}
			rsp = s.answer(msg, refuse)
		}
		if err := writeMsg(s.conn, rsp); err != nil {
			return
		}
	}
}

// pullAway fails the driver's read of an answer, as a tag leaving the field
// mid-read fails a reader's: it announces an answer and then resets the
// connection. (An orderly close, or a reset before the length, reaches
// pcscd as an empty answer instead: the driver reads those as length 0.)
// The pause lets the driver take the length before the reset arrives.
func pullAway(conn net.Conn) {
	_, _ = conn.Write([]byte{0, 2})
	time.Sleep(20 * time.Millisecond)
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
}

// readMsg reads one message; beforeRead runs before each blocking read.
func readMsg(r io.Reader, beforeRead func()) ([]byte, error) {
	var hdr [2]byte
	beforeRead()
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, err
	}
	beforeRead()
	msg := make([]byte, binary.BigEndian.Uint16(hdr[:]))
	if _, err := io.ReadFull(r, msg); err != nil {
		return nil, err
	}
	return msg, nil
}

func writeMsg(w io.Writer, p []byte) error {
	buf := make([]byte, 2+len(p))
	binary.BigEndian.PutUint16(buf, uint16(len(p)))
	copy(buf[2:], p)
	_, err := w.Write(buf)
	return err
}
