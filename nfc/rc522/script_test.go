package rc522_test

import (
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"
)

// Register addresses of the MFRC522 datasheet, table 20, written out
// rather than taken from the package under test.
const (
	rCommand    = 0x01
	rCommIrq    = 0x04
	rError      = 0x06
	rFIFOData   = 0x09
	rFIFOLevel  = 0x0A
	rControl    = 0x0C
	rBitFraming = 0x0D
	rMode       = 0x11
	rTxControl  = 0x14
	rTxASK      = 0x15
	rTMode      = 0x2A
	rTPrescaler = 0x2B
	rTReloadH   = 0x2C
	rTReloadL   = 0x2D
	rVersion    = 0x37
)

// script is the SPI traffic a chip is expected to see, with its answers,
// in the framing of datasheet section 8.1.2: byte 0 is the address
// (bit 7 set to read, register in bits 6..1), reads return the value in
// the byte after the address.
type script []conntest.IO

func (s *script) wr(reg, v byte) { *s = append(*s, conntest.IO{W: []byte{reg << 1, v}}) }

func (s *script) rd(reg, v byte) {
	*s = append(*s, conntest.IO{W: []byte{0x80 | reg<<1, 0}, R: []byte{0, v}})
}

// fifoW is a burst write to FIFODataReg; fifoR a burst read of len(b)
// bytes.
func (s *script) fifoW(b ...byte) {
	*s = append(*s, conntest.IO{W: append([]byte{rFIFOData << 1}, b...)})
}

func (s *script) fifoR(b ...byte) {
	w := make([]byte, len(b)+1)
	for i := range b {
		w[i] = 0x80 | rFIFOData<<1
	}
	*s = append(*s, conntest.IO{W: w, R: append([]byte{0}, b...)})
}

// open: VersionReg, SoftReset, CommandReg until PowerDown (0x10) is
// clear, then the timer (TAuto, prescaler 0x0A9 → 40 kHz, reload 1000 →
// 25 ms), 100% ASK and CRC preset 0x6363.
func (s *script) open(version byte) {
	s.rd(rVersion, version)
	s.wr(rCommand, 0x0F)
	s.rd(rCommand, 0x30) // still powered down once
	s.rd(rCommand, 0x20)
	s.wr(rTMode, 0x80)
	s.wr(rTPrescaler, 0xA9)
	s.wr(rTReloadH, 0x03)
	s.wr(rTReloadL, 0xE8)
	s.wr(rTxASK, 0x40)
	s.wr(rMode, 0x3D)
}

// send is the start of a Transceive (datasheet 10.3.1.8): Idle, clear the
// interrupts, flush the FIFO, load it, TxLastBits, Transceive, StartSend.
func (s *script) send(tx []byte, bits byte) {
	s.wr(rCommand, 0x00)
	s.wr(rCommIrq, 0x7F)
	s.wr(rFIFOLevel, 0x80)
	s.fifoW(tx...)
	s.wr(rBitFraming, bits)
	s.wr(rCommand, 0x0C)
	s.wr(rBitFraming, 0x80|bits)
}

// answer: CommIrqReg has TxIRq, RxIRq, LoAlertIRq; no error; the FIFO
// holds rx; ControlReg's RxLastBits are 0 (whole bytes; bit 4 reads 1).
func (s *script) answer(rx ...byte) {
	s.rd(rCommIrq, 0x64)
	s.rd(rError, 0x00)
	s.rd(rFIFOLevel, byte(len(rx)))
	if len(rx) > 0 {
		s.fifoR(rx...)
	}
	s.rd(rControl, 0x10)
}

// silence: the timer ran out (TxIRq, TimerIRq): no tag answered.
func (s *script) silence() { s.rd(rCommIrq, 0x41) }

func (s *script) fieldOn() { s.wr(rTxControl, 0x83) }

// wupa: WUPA (0x52, 7 bits), ATQA of a double-size UID tag or not.
func (s *script) wupa(atqa ...byte) {
	s.send([]byte{0x52}, 7)
	s.answer(atqa...)
}

// hlta: HLTA 50 00 with CRC_A 57 CD; a tag never answers it.
func (s *script) hlta() {
	s.send([]byte{0x50, 0x00, 0x57, 0xCD}, 0)
	s.silence()
}

// level is one cascade level: the anticollision command (SEL, NVB 0x20),
// the tag's UID CLn and BCC; SELECT (SEL, NVB 0x70, UID CLn, BCC,
// CRC_A) and the SAK with its CRC_A.
func (s *script) level(part []byte, sel []byte, sak []byte) {
	s.send([]byte{sel[0], 0x20}, 0)
	s.answer(part...)
	s.send(sel, 0)
	s.answer(sak...)
}

// Frames of ISO/IEC 14443-3 with CRC_A (annex B) and BCC worked out by
// hand for the UIDs the tests use.
var (
	uid4       = []byte{0xDE, 0xAD, 0xBE, 0xEF}
	uid4CL1    = []byte{0xDE, 0xAD, 0xBE, 0xEF, 0x22}
	uid4Select = []byte{0x93, 0x70, 0xDE, 0xAD, 0xBE, 0xEF, 0x22, 0xB9, 0x9C}
	sak08      = []byte{0x08, 0xB6, 0xDD} // MIFARE Classic 1K, UID complete
	sak04      = []byte{0x04, 0xDA, 0x17} // UID not complete
	sak00      = []byte{0x00, 0xFE, 0x51} // MIFARE Ultralight / NTAG
	sak20      = []byte{0x20, 0xFC, 0x70} // ISO/IEC 14443-4

	uid7        = []byte{0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6}
	uid7CL1     = []byte{0x88, 0x04, 0xA1, 0xB2, 0x9F}
	uid7Select1 = []byte{0x93, 0x70, 0x88, 0x04, 0xA1, 0xB2, 0x9F, 0xAE, 0x4B}
	uid7CL2     = []byte{0xC3, 0xD4, 0xE5, 0xF6, 0x04}
	uid7Select2 = []byte{0x95, 0x70, 0xC3, 0xD4, 0xE5, 0xF6, 0x04, 0x9E, 0x03}

	uid10        = []byte{0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99}
	uid10CL1     = []byte{0x88, 0x04, 0x11, 0x22, 0xBF}
	uid10Select1 = []byte{0x93, 0x70, 0x88, 0x04, 0x11, 0x22, 0xBF, 0xB3, 0xF9}
	uid10CL2     = []byte{0x88, 0x33, 0x44, 0x55, 0xAA}
	uid10Select2 = []byte{0x95, 0x70, 0x88, 0x33, 0x44, 0x55, 0xAA, 0x13, 0xFA}
	uid10CL3     = []byte{0x66, 0x77, 0x88, 0x99, 0x00}
	uid10Select3 = []byte{0x97, 0x70, 0x66, 0x77, 0x88, 0x99, 0x00, 0xCE, 0x25}
)

// playback returns a port that replays s and reports, rather than panics
// on, any exchange the driver makes that s does not list.
func (s script) playback() *spitest.Playback {
	p := &spitest.Playback{}
	p.Ops = s
	p.DontPanic = true
	return p
}

func portOf(p *spitest.Playback) func() (spi.PortCloser, error) {
	return func() (spi.PortCloser, error) { return p, nil }
}
