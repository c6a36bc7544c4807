package rc522test

import (
	"errors"
	"sync"

	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
)

// Sim is an MFRC522 of our own, at register level, with at most one
// ISO/IEC 14443-A tag in its field that follows the tag states of
// ISO/IEC 14443-3 figure 7 (power-off, idle, ready, active, halt): unlike
// a Script it answers any number of polls, for tests where the number of
// exchanges is not known in advance (a poll loop). It implements
// spi.PortCloser; Connect may be called once per Sim.
type Sim struct {
	// Version is VersionReg; zero means 0x92.
	Version byte

	mu        sync.Mutex
	regs      [64]byte
	fifo      []byte
	connected bool
	closed    bool
	uid       []byte
	mem       ndeftest.Memory
	nak       bool // the tag's last answer was a 4-bit NAK
	collide   bool
	state     tagState
	level     int // cascade level being selected, from 0
}

type tagState int

const (
	tagOff tagState = iota
	tagIdle
	tagReady
	tagActive
	tagHalt
)

// Place puts a tag with uid (4, 7 or 10 bytes) in the field; nil takes
// it away. A tag placed in a field that is on starts idle.
func (s *Sim) Place(uid []byte) { s.PlaceTag(uid, ndeftest.Memory{}) }

// PlaceTag is Place of a tag with memory: a Type 2 image (SAK 0x00)
// answers READ (0x30) with CRC_A, or NAKs a page past its end; a Type 4
// application only makes the tag ISO-DEP (SAK 0x20), which the driver
// does not speak.
func (s *Sim) PlaceTag(uid []byte, mem ndeftest.Memory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.uid, s.mem = append([]byte(nil), uid...), mem
	s.state = tagOff
	if uid != nil && s.fieldOn() {
		s.state = tagIdle
	}
}

// Collide makes a second tag answer along with the first: their
// anticollision answers collide.
func (s *Sim) Collide(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.collide = on
}

// FieldOn reports whether the RF field is on.
func (s *Sim) FieldOn() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fieldOn()
}

func (s *Sim) fieldOn() bool { return s.regs[RegTxControl]&0x03 == 0x03 }

func (s *Sim) String() string                    { return "rc522test.Sim" }
func (s *Sim) LimitSpeed(physic.Frequency) error { return nil }
func (s *Sim) Duplex() conn.Duplex               { return conn.Full }
func (s *Sim) TxPackets([]spi.Packet) error      { return errors.New("rc522test: TxPackets is not used") }

// Connect implements spi.Port.
func (s *Sim) Connect(physic.Frequency, spi.Mode, int) (spi.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.connected || s.closed {
		return nil, errors.New("rc522test: Connect on a Sim already connected or closed")
	}
	s.connected = true
	s.reset()
	return s, nil
}

// Close implements spi.PortCloser.
func (s *Sim) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	return nil
}

// Tx implements conn.Conn with the framing of datasheet section 8.1.2.
func (s *Sim) Tx(w, r []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("rc522test: Tx on a closed Sim")
	}
	if len(w) == 0 || (r != nil && len(r) != len(w)) {
		return errors.New("rc522test: malformed transfer")
	}
	if w[0]&0x80 == 0 {
		for _, v := range w[1:] {
			s.write(int(w[0]>>1&0x3F), v)
		}
		return nil
	}
	for i := 0; i+1 < len(w); i++ {
		if w[i]&0x80 == 0 {
			return errors.New("rc522test: a write address inside a burst read")
		}
		v := s.read(int(w[i] >> 1 & 0x3F))
		if r != nil {
			r[i+1] = v
		}
	}
	return nil
}

func (s *Sim) reset() {
	s.regs = [64]byte{}
	s.regs[RegCommand] = 0x20
	s.regs[RegTxControl] = 0x80
	s.fifo = nil
	s.state = tagOff // the field is off after a reset
}

func (s *Sim) read(reg int) byte {
	switch reg {
	case RegFIFOData:
		if len(s.fifo) == 0 {
			return 0
		}
		v := s.fifo[0]
		s.fifo = s.fifo[1:]
		return v
	case RegFIFOLevel:
		return byte(len(s.fifo))
	case RegVersion:
		if s.Version == 0 {
			return 0x92
		}
		return s.Version
	}
	return s.regs[reg]
}

func (s *Sim) write(reg int, v byte) {
	switch reg {
	case RegFIFOData:
		if len(s.fifo) < 64 {
			s.fifo = append(s.fifo, v)
		}
	case RegFIFOLevel:
		if v&0x80 != 0 {
			s.fifo = nil
		}
	case RegCommIrq:
		if v&0x80 != 0 {
			s.regs[reg] |= v & 0x7F
		} else {
			s.regs[reg] &^= v & 0x7F
		}
	case RegCommand:
		if v&0x0F == 0x0F {
			s.reset()
			return
		}
		s.regs[reg] = 0x20 | v&0x0F
	case RegTxControl:
		s.regs[reg] = v
		switch {
		case !s.fieldOn():
			s.state = tagOff
		case s.uid != nil && s.state == tagOff:
			s.state = tagIdle
		}
	case RegBitFraming:
		s.regs[reg] = v &^ 0x80
		if v&0x80 != 0 && s.regs[RegCommand]&0x0F == 0x0C {
			s.transceive(v & 0x07)
		}
	default:
		s.regs[reg] = v
	}
}

// transceive sends the FIFO to the tag and loads its answer: RxIRq, or
// TimerIRq when it keeps silent; a collision sets ErrorReg's CollErr.
func (s *Sim) transceive(bits byte) {
	frame := s.fifo
	s.fifo = nil
	s.regs[RegError] = 0
	s.regs[RegControl] = 0x10
	s.nak = false
	answer, coll := s.tag(frame, bits)
	if s.nak {
		s.regs[RegControl] |= 4 // 4 valid bits in the last byte
	}
	switch {
	case coll:
		s.regs[RegError] = 0x08
		s.regs[RegCommIrq] |= 0x62
	case answer != nil:
		s.fifo = answer
		s.regs[RegCommIrq] |= 0x60
	default:
		s.regs[RegCommIrq] |= 0x41
	}
}

// tag is the tag's side of ISO/IEC 14443-3: what it answers to frame,
// and whether the answer collides with a second tag's.
func (s *Sim) tag(frame []byte, bits byte) (answer []byte, coll bool) {
	if s.state == tagOff || len(frame) == 0 {
		return nil, false
	}
	sels := []byte{0x93, 0x95, 0x97}
	levels := len(s.uid) / 3 // cascade levels: 4 bytes → 1, 7 → 2, 10 → 3
	switch {
	case bits == 7 && len(frame) == 1 && (frame[0] == 0x52 || frame[0] == 0x26 && s.state == tagIdle):
		if s.state != tagIdle && s.state != tagHalt {
			break
		}
		s.state, s.level = tagReady, 0
		return []byte{[]byte{0x04, 0x44, 0x84}[levels-1], 0x00}, false
	case s.state == tagReady && len(frame) == 2 && frame[0] == sels[s.level] && frame[1] == 0x20:
		if s.collide {
			return nil, true
		}
		return s.part(levels), false
	case s.state == tagReady && len(frame) == 9 && frame[0] == sels[s.level] && frame[1] == 0x70 && crcOK(frame):
		want := s.part(levels)
		for i := range want {
			if frame[2+i] != want[i] {
				s.state = tagIdle
				return nil, false
			}
		}
		sak := byte(0x04)
		if s.level == levels-1 {
			sak = []byte{0x08, 0x00, 0x20}[levels-1]
			switch {
			case s.mem.Type2 != nil:
				sak = 0x00
			case s.mem.Type4 != nil:
				sak = 0x20
			}
			s.state = tagActive
		} else {
			s.level++
		}
		return withCRC([]byte{sak}), false
	case s.state == tagActive && len(frame) == 4 && frame[0] == 0x50 && frame[1] == 0x00 && crcOK(frame):
		s.state = tagHalt
		return nil, false
	case s.state == tagActive && len(frame) == 4 && frame[0] == 0x30 && crcOK(frame) && s.mem.Type4 == nil:
		if s.mem.Type2 != nil {
			if b, ok := s.mem.Type2.Read(frame[1]); ok {
				return withCRC(b), false
			}
		}
		// Past the end, or a MIFARE Classic reading without authentication.
		s.nak = true
		s.state = tagIdle
		return []byte{0x00}, false
	}
	if s.state != tagHalt {
		s.state = tagIdle
	}
	return nil, false
}

// part is UID CLn and BCC for the cascade level being selected.
func (s *Sim) part(levels int) []byte {
	var p []byte
	if s.level < levels-1 {
		p = append([]byte{0x88}, s.uid[3*s.level:3*s.level+3]...)
	} else {
		p = append([]byte(nil), s.uid[3*s.level:]...)
	}
	return append(p, p[0]^p[1]^p[2]^p[3])
}

// crcA is CRC_A bit by bit (ISO/IEC 14443-3 annex B: the reflected
// CCITT polynomial 0x8408, preset 0x6363), written apart from the
// driver's byte-wise one so that each checks the other.
func crcA(b []byte) uint16 {
	crc := uint16(0x6363)
	for _, x := range b {
		crc ^= uint16(x)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x8408
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

func withCRC(b []byte) []byte {
	c := crcA(b)
	return append(b, byte(c), byte(c>>8))
}

func crcOK(b []byte) bool {
	c := crcA(b[:len(b)-2])
	return b[len(b)-2] == byte(c) && b[len(b)-1] == byte(c>>8)
}
