package rc522

import (
	"fmt"

	"periph.io/x/conn/v3/spi"
	"periph.io/x/devices/v3/mfrc522/commands"
)

// Registers and commands of the datasheet (section 9.2, table 20; section
// 10.3, table 149). periph names them; the ones it lacks or misnames are
// spelled out here.
const (
	regCommand    = commands.CommandReg
	regCommIrq    = commands.CommIrqReg
	regError      = commands.ErrorReg
	regFIFOData   = commands.FIFODataReg
	regFIFOLevel  = commands.FIFOLevelReg
	regControl    = commands.ControlReg
	regBitFraming = commands.BitFramingReg
	regMode       = commands.ModeReg
	regTxControl  = commands.TxControlReg
	regTxASK      = commands.TxAutoReg // 0x15 is TxASKReg in the datasheet
	regTMode      = commands.TModeReg
	regTPrescaler = commands.TPrescalerReg
	regTReloadH   = commands.TReloadRegH
	regTReloadL   = commands.TReloadRegL
	regVersion    = commands.VersionReg

	cmdIdle       = commands.PCD_IDLE
	cmdTransceive = commands.PCD_TRANSCEIVE
	cmdSoftReset  = commands.PCD_RESETPHASE
)

// Bits of the registers above.
const (
	powerDown   = 0x10 // CommandReg: soft power-down, set until the oscillator runs
	irqTimer    = 0x01 // CommIrqReg bits
	irqErr      = 0x02
	irqIdle     = 0x10
	irqRx       = 0x20
	irqClearAll = 0x7F // Set1 = 0: the ones written are cleared
	flushFIFO   = 0x80 // FIFOLevelReg
	startSend   = 0x80 // BitFramingReg
	errProtocol = 0x01 // ErrorReg bits
	errParity   = 0x02
	errCRC      = 0x04
	errColl     = 0x08
	errOverflow = 0x10
	fifoSize    = 64
	// TxControlReg with Tx1RFEn and Tx2RFEn (field on) or without them;
	// 0x80 is the reset value (InvTx2RFOn).
	fieldOnValue  = 0x83
	fieldOffValue = 0x80
)

// initSequence sets up the chip after a soft reset, as the datasheet's
// section 8.5 and 9.3.3.10 describe: the timer ticks at
// 13.56 MHz / (2·0x0A9+1) = 40 kHz, 25 µs, and starts at the end of
// every transmission (TAuto); reload 1000 ticks gives a tag 25 ms to
// answer. 100% ASK modulation, which type A needs; CRC preset 0x6363
// (CRC_A).
var initSequence = [][2]byte{
	{regTMode, 0x80},
	{regTPrescaler, 0xA9},
	{regTReloadH, 0x03},
	{regTReloadL, 0xE8},
	{regTxASK, 0x40},
	{regMode, 0x3D},
}

// bus is the SPI register access of section 8.1.2.
type bus struct{ c spi.Conn }

func (b bus) write(reg int, v byte) error {
	if err := b.c.Tx([]byte{byte(reg<<1) & 0x7E, v}, nil); err != nil {
		return fmt.Errorf("writing register 0x%02X: %w", reg, err)
	}
	return nil
}

func (b bus) read(reg int) (byte, error) {
	r := make([]byte, 2)
	if err := b.c.Tx([]byte{0x80 | byte(reg<<1)&0x7E, 0}, r); err != nil {
		return 0, fmt.Errorf("reading register 0x%02X: %w", reg, err)
	}
	return r[1], nil
}

// writeFIFO sends data to FIFODataReg in one transfer: the address byte,
// then the bytes (section 8.1.2.2).
func (b bus) writeFIFO(data []byte) error {
	w := append([]byte{byte(regFIFOData<<1) & 0x7E}, data...)
	if err := b.c.Tx(w, nil); err != nil {
		return fmt.Errorf("writing the FIFO: %w", err)
	}
	return nil
}

// readFIFO reads n bytes from FIFODataReg in one transfer: the read
// address n times, then 0 (section 8.1.2.1); byte i+1 of the answer is
// the i-th FIFO byte.
func (b bus) readFIFO(n int) ([]byte, error) {
	w := make([]byte, n+1)
	for i := range n {
		w[i] = 0x80 | byte(regFIFOData<<1)&0x7E
	}
	r := make([]byte, n+1)
	if err := b.c.Tx(w, r); err != nil {
		return nil, fmt.Errorf("reading the FIFO: %w", err)
	}
	return r[1:], nil
}
