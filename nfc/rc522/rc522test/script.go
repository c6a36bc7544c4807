// Package rc522test builds the SPI traffic an MFRC522 sees, with its
// answers, for periph's spitest.Playback: the tests of nfc/rc522 and of
// the steps that open an RC522 (accept's env.rc522) replay it.
package rc522test

import (
	"periph.io/x/conn/v3/conntest"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/conn/v3/spi/spitest"
)

// Register addresses of the MFRC522 datasheet, table 20, written out
// rather than taken from the driver.
const (
	RegCommand    = 0x01
	RegCommIrq    = 0x04
	RegError      = 0x06
	RegFIFOData   = 0x09
	RegFIFOLevel  = 0x0A
	RegControl    = 0x0C
	RegBitFraming = 0x0D
	RegMode       = 0x11
	RegTxControl  = 0x14
	RegTxASK      = 0x15
	RegTMode      = 0x2A
	RegTPrescaler = 0x2B
	RegTReloadH   = 0x2C
	RegTReloadL   = 0x2D
	RegVersion    = 0x37
)

// Script is the SPI traffic a chip is expected to see, with its answers,
// in the framing of datasheet section 8.1.2: byte 0 is the address
// (bit 7 set to read, register in bits 6..1), reads return the value in
// the byte after the address.
type Script []conntest.IO

// Write expects v written to register reg.
func (s *Script) Write(reg, v byte) { *s = append(*s, conntest.IO{W: []byte{reg << 1, v}}) }

// Read expects register reg read, and answers v.
func (s *Script) Read(reg, v byte) {
	*s = append(*s, conntest.IO{W: []byte{0x80 | reg<<1, 0}, R: []byte{0, v}})
}

// FIFOWrite expects b written to FIFODataReg in one burst.
func (s *Script) FIFOWrite(b ...byte) {
	*s = append(*s, conntest.IO{W: append([]byte{RegFIFOData << 1}, b...)})
}

// FIFORead expects len(b) bytes read from FIFODataReg in one burst, and
// answers b.
func (s *Script) FIFORead(b ...byte) {
	w := make([]byte, len(b)+1)
	for i := range b {
		w[i] = 0x80 | RegFIFOData<<1
	}
	*s = append(*s, conntest.IO{W: w, R: append([]byte{0}, b...)})
}

// Open expects the driver's start: VersionReg, SoftReset, CommandReg
// until PowerDown (0x10) is clear, then the timer (TAuto, prescaler
// 0x0A9 → 40 kHz, reload 1000 → 25 ms), 100% ASK and CRC preset 0x6363.
func (s *Script) Open(version byte) {
	s.Read(RegVersion, version)
	s.Write(RegCommand, 0x0F)
	s.Read(RegCommand, 0x30) // still powered down once
	s.Read(RegCommand, 0x20)
	s.Write(RegTMode, 0x80)
	s.Write(RegTPrescaler, 0xA9)
	s.Write(RegTReloadH, 0x03)
	s.Write(RegTReloadL, 0xE8)
	s.Write(RegTxASK, 0x40)
	s.Write(RegMode, 0x3D)
}

// Send expects the start of a Transceive (datasheet 10.3.1.8): Idle,
// clear the interrupts, flush the FIFO, load it, TxLastBits,
// Transceive, StartSend.
func (s *Script) Send(tx []byte, bits byte) {
	s.Write(RegCommand, 0x00)
	s.Write(RegCommIrq, 0x7F)
	s.Write(RegFIFOLevel, 0x80)
	s.FIFOWrite(tx...)
	s.Write(RegBitFraming, bits)
	s.Write(RegCommand, 0x0C)
	s.Write(RegBitFraming, 0x80|bits)
}

// Answer answers a Send: CommIrqReg has TxIRq, RxIRq, LoAlertIRq; no error; the FIFO
// holds rx; ControlReg's RxLastBits are 0 (whole bytes; bit 4 reads 1).
func (s *Script) Answer(rx ...byte) {
	s.Read(RegCommIrq, 0x64)
	s.Read(RegError, 0x00)
	s.Read(RegFIFOLevel, byte(len(rx)))
	if len(rx) > 0 {
		s.FIFORead(rx...)
	}
	s.Read(RegControl, 0x10)
}

// Silence answers a Send with the timer run out (TxIRq, TimerIRq): no tag answered.
func (s *Script) Silence() { s.Read(RegCommIrq, 0x41) }

// FieldOn expects the RF field switched on (TxControlReg Tx1RFEn,
// Tx2RFEn).
func (s *Script) FieldOn() { s.Write(RegTxControl, 0x83) }

// WUPA expects WUPA (0x52, 7 bits) and answers atqa.
func (s *Script) WUPA(atqa ...byte) {
	s.Send([]byte{0x52}, 7)
	s.Answer(atqa...)
}

// HLTA expects HLTA, 50 00 with CRC_A 57 CD, which a tag never answers.
func (s *Script) HLTA() {
	s.Send([]byte{0x50, 0x00, 0x57, 0xCD}, 0)
	s.Silence()
}

// Level expects one cascade level: the anticollision command (SEL, NVB 0x20),
// the tag's UID CLn and BCC; SELECT (SEL, NVB 0x70, UID CLn, BCC,
// CRC_A) and the SAK with its CRC_A.
func (s *Script) Level(part []byte, sel []byte, sak []byte) {
	s.Send([]byte{sel[0], 0x20}, 0)
	s.Answer(part...)
	s.Send(sel, 0)
	s.Answer(sak...)
}

// Playback returns a port that replays s and reports, rather than panics
// on, any exchange the driver makes that s does not list.
func (s Script) Playback() *spitest.Playback {
	p := &spitest.Playback{}
	p.Ops = s
	p.DontPanic = true
	return p
}

// Port is an Options.OpenPort that returns p.
func Port(p *spitest.Playback) func() (spi.PortCloser, error) {
	return func() (spi.PortCloser, error) { return p, nil }
}
