// Package pn532test emulates a PN532 board on its HSU (UART) interface,
// on a pseudo-terminal, from the NXP PN532 User Manual UM0701-02: it
// parses the host's frames, sleeps until the HSU wake-up, ACKs each
// command and answers GetFirmwareVersion, SAMConfiguration,
// RFConfiguration and InListPassiveTarget, with a tag of any UID length in
// its field, and can misbehave on purpose (Fault). It is the stand-in for
// the board in the tests of package pn532 and of the commands that use it.
package pn532test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agentcall/acbridge/internal/changed"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
)

// Fault is a way the board misbehaves.
type Fault int

const (
	None       Fault = iota
	Silent           // reads commands, answers nothing (a board that hangs or lost power)
	Garbage          // line noise before each ACK and answer
	BadDCS           // answers with a wrong data checksum
	BadLCS           // answers with a wrong length checksum
	ShortFrame       // answers whose LEN promises more bytes than come (a LEN that lies)
	ErrorFrame       // the application-level error frame instead of answers
)

// Emulator is one emulated board. Path is the port to open.
type Emulator struct {
	Path string

	master *os.File
	slave  int
	wg     sync.WaitGroup

	mu       sync.Mutex
	awake    bool
	field    bool
	retries  byte // MxRtyPassiveActivation; FF (the default) waits for a tag for ever
	uid      []byte
	mem      ndeftest.Memory
	fault    Fault
	faultN   int // answers left to spoil; negative: all
	commands []byte
	polls    int
	changed  changed.Signal // after each command handled
}

// New starts an emulated board, asleep, field off, no tag. Close it.
func New() (*Emulator, error) {
	m, path, err := openPTY()
	if err != nil {
		return nil, err
	}
	s, err := holdSlave(path)
	if err != nil {
		m.Close()
		return nil, err
	}
	e := &Emulator{Path: path, master: m, slave: s, retries: 0xFF}
	e.wg.Add(1)
	go e.run()
	return e, nil
}

// Close stops the emulator and waits for it.
func (e *Emulator) Close() error {
	err := e.master.Close()
	e.wg.Wait()
	unix.Close(e.slave)
	return err
}

// SetTag puts a tag with uid in the field (nil: none).
func (e *Emulator) SetTag(uid []byte) {
	e.SetTagMemory(uid, ndeftest.Memory{})
}

// SetTagMemory puts a tag with uid and memory mem in the field: a Type 2
// image answers READ (0x30) through InDataExchange, a Type 4 application
// makes the tag ISO-DEP (SEL_RES 0x20, an ATS) and answers APDUs.
func (e *Emulator) SetTagMemory(uid []byte, mem ndeftest.Memory) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.uid, e.mem = bytes.Clone(uid), mem
}

// SetFault makes the next n answers misbehave as f (n < 0: all of them,
// until SetFault(None, 0)).
func (e *Emulator) SetFault(f Fault, n int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.fault, e.faultN = f, n
}

// FieldOn reports whether the RF field is on.
func (e *Emulator) FieldOn() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.field
}

// Polls is how many InListPassiveTarget commands were answered.
func (e *Emulator) Polls() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.polls
}

// Wait blocks until cond reports true, asking again after each command the
// board handles, or until ctx is done. cond may call the Emulator's methods.
func (e *Emulator) Wait(ctx context.Context, cond func() bool) error {
	return e.changed.Wait(ctx, cond)
}

// Commands returns the command codes received, in order.
func (e *Emulator) Commands() []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	return bytes.Clone(e.commands)
}

func (e *Emulator) run() {
	defer e.wg.Done()
	var in []byte
	buf := make([]byte, 512)
	for {
		n, err := e.master.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			continue // EIO while no slave is open cannot happen (we hold one); keep going
		}
		in = append(in, buf[:n]...)
		in = e.consume(in)
	}
}

// consume handles every complete frame at the start of in and returns the
// rest. Bytes before a start code are a wake-up (0x55) or ignored.
func (e *Emulator) consume(in []byte) []byte {
	for {
		i := bytes.Index(in, []byte{0x00, 0xFF})
		if i < 0 {
			e.wakeOn(in)
			if len(in) > 0 && in[len(in)-1] == 0x00 {
				return in[len(in)-1:]
			}
			return in[:0]
		}
		e.wakeOn(in[:i])
		f := in[i+2:]
		if len(f) < 2 {
			return in[i:]
		}
		n, lcs := f[0], f[1]
		if n == 0x00 && lcs == 0xFF || n == 0xFF && lcs == 0x00 { // the host's ACK (abort) or NACK
			in = f[2:]
			continue
		}
		if n+lcs != 0 || n == 0 {
			in = f[2:] // a bad length checksum: the manual says the frame is ignored
			continue
		}
		if len(f) < 2+int(n)+1 {
			return in[i:]
		}
		data, dcs := f[2:2+int(n)], f[2+int(n)]
		sum := dcs
		for _, b := range data {
			sum += b
		}
		if sum == 0 && len(data) >= 2 && data[0] == 0xD4 {
			e.command(data[1], data[2:])
			e.changed.Notify()
		}
		in = f[3+int(n):]
	}
}

func (e *Emulator) wakeOn(b []byte) {
	if bytes.IndexByte(b, 0x55) >= 0 {
		e.mu.Lock()
		e.awake = true
		e.mu.Unlock()
	}
}

// command answers one command: ACK, then the answer.
func (e *Emulator) command(cmd byte, p []byte) {
	e.mu.Lock()
	if !e.awake { // asleep: the UART is not listening
		e.mu.Unlock()
		return
	}
	e.commands = append(e.commands, cmd)
	fault := e.fault
	if e.faultN == 0 {
		fault = None
	} else if e.faultN > 0 {
		e.faultN--
	}
	var answer []byte
	switch {
	case cmd == 0x02: // GetFirmwareVersion: PN532, firmware 1.6, type A, B and ISO 18092
		answer = []byte{0x32, 0x01, 0x06, 0x07}
	case cmd == 0x14 && len(p) >= 1: // SAMConfiguration
		answer = []byte{}
	case cmd == 0x32 && len(p) >= 2 && p[0] == 0x01: // RFConfiguration: RF field
		e.field = p[1]&0x01 != 0
		answer = []byte{}
	case cmd == 0x32 && len(p) >= 4 && p[0] == 0x05: // RFConfiguration: MaxRetries
		e.retries = p[3]
		answer = []byte{}
	case cmd == 0x4A && len(p) >= 2 && p[0] == 0x01 && p[1] == 0x00: // InListPassiveTarget, 106 kbps type A
		e.field = true
		e.polls++
		switch {
		case e.uid != nil:
			answer = target(e.uid, e.mem.Type4 != nil)
			if e.mem.Type4 != nil {
				e.mem.Type4.Reset()
			}
		case e.retries == 0xFF:
			answer = nil // a real PN532 waits for a tag for ever
		default:
			answer = []byte{0x00}
		}
	case cmd == 0x40 && len(p) >= 2 && p[0] == 0x01 && e.uid != nil && e.field: // InDataExchange with target 1
		answer = e.exchange(p[1:])
	default:
		fault = ErrorFrame
	}
	e.mu.Unlock()

	if fault == Silent {
		return
	}
	e.send(fault, []byte{0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00})
	switch {
	case fault == ErrorFrame:
		e.send(None, []byte{0x00, 0x00, 0xFF, 0x01, 0xFF, 0x7F, 0x81, 0x00})
	case answer != nil:
		e.send(fault, frame(append([]byte{0xD5, cmd + 1}, answer...), fault))
	}
}

// target is InListPassiveTarget's answer for one type A tag: NbTg, Tg,
// SENS_RES (its UID size bits: single, double, triple), SEL_RES, the UID.
func target(uid []byte, isoDEP bool) []byte {
	sens := byte(0x04)
	switch {
	case len(uid) == 7:
		sens = 0x44
	case len(uid) == 10:
		sens = 0x84
	}
	sel := byte(0x00)
	if isoDEP {
		sel = 0x20
	}
	a := append([]byte{0x01, 0x01, 0x00, sens, sel, byte(len(uid))}, uid...)
	if isoDEP {
		a = append(a, 0x05, 0x78, 0x80, 0x70, 0x02) // ATS: FSCI 8, no historical bytes
	}
	return a
}

// exchange answers InDataExchange's data for the selected tag: a status
// byte (0x00 success, 0x14 the tag's NAK, as UM0701-02 table 7.1 reports a
// refused MIFARE command) and the tag's answer.
func (e *Emulator) exchange(d []byte) []byte {
	switch {
	case e.mem.Type4 != nil:
		return append([]byte{0x00}, e.mem.Type4.Answer(d)...)
	case e.mem.Type2 != nil && len(d) == 2 && d[0] == 0x30:
		if b, ok := e.mem.Type2.Read(d[1]); ok {
			return append([]byte{0x00}, b...)
		}
	}
	return []byte{0x14}
}

// frame builds a normal information frame, spoiled as fault says.
func frame(data []byte, fault Fault) []byte {
	n := byte(len(data))
	sum := byte(0)
	for _, b := range data {
		sum += b
	}
	f := append([]byte{0x00, 0x00, 0xFF, n, -n}, data...)
	f = append(f, -sum, 0x00)
	switch fault {
	case BadDCS:
		f[len(f)-2] ^= 0x5A
	case BadLCS:
		f[4] ^= 0x01
	case ShortFrame:
		f[3], f[4] = n+20, -(n + 20)
	}
	return f
}

// noise is what a floating line or a baud-rate mismatch looks like; it
// holds a 00 and an FF but never 00 FF.
var noise = []byte{0xFF, 0x13, 0x00, 0x37, 0xAA, 0x55, 0xF0, 0x00, 0x01, 0xFE}

func (e *Emulator) send(fault Fault, b []byte) {
	if fault == Garbage {
		b = append(bytes.Clone(noise), b...)
	}
	_, _ = e.master.Write(b)
}

// Start is New for a test: it skips the test where no pseudo-terminal can
// be had and closes the emulator when the test ends.
func Start(t testing.TB) *Emulator {
	t.Helper()
	e, err := New()
	if err != nil {
		t.Skipf("no pseudo-terminal for the PN532 emulator: %v", err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
