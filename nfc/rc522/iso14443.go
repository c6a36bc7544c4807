package rc522

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/nfc/poll"
)

// ISO/IEC 14443-3 type A commands.
const (
	cmdWUPA    = 0x52 // 7 bits
	cmdHLTA    = 0x50
	nvbAnticol = 0x20 // SEL, NVB: "send me the whole UID CLn"
	nvbSelect  = 0x70 // SEL, NVB, UID CLn, BCC: select it
	cascadeTag = 0x88
	sakCascade = 0x04 // SAK bit 3: the UID is not complete
)

// selCodes are SEL for cascade levels 1, 2 and 3 (4-, 7-, 10-byte UIDs).
var selCodes = []byte{0x93, 0x95, 0x97}

// ErrTagFrame: a tag answered, but with a frame that is not valid (a
// collision of two tags, a parity or CRC error, a wrong length): it
// moved, or two are in the field. It wraps poll.ErrNoTag, because no UID
// was read and the chip is fine.
var ErrTagFrame = fmt.Errorf("rc522: a tag answered with an invalid frame (two tags in the field, or one moving): %w", poll.ErrNoTag)

// Poll switches the field on if it is off, wakes a tag (WUPA), selects it
// cascade level by level and halts it (HLTA) so that it answers the next
// WUPA too.
func (c *Chip) Poll(ctx context.Context) ([]byte, error) {
	if err := c.enter(ctx); err != nil {
		return nil, err
	}
	defer c.mu.Unlock()
	if !c.fieldOn {
		if err := c.bus.write(regTxControl, fieldOnValue); err != nil {
			return nil, chipErr(err)
		}
		c.fieldOn = true
		if err := c.sleep(ctx, fieldSettle); err != nil {
			return nil, err
		}
	}
	uid, err := c.wakeSelect(ctx)
	if err != nil {
		return nil, err
	}
	c.polled = sha256.Sum256(uid)
	if err := c.halt(ctx); err != nil {
		clear(uid)
		return nil, err
	}
	return uid, nil
}

// wakeSelect wakes a tag (WUPA, which halted tags answer too) and selects
// it, returning its UID.
func (c *Chip) wakeSelect(ctx context.Context) ([]byte, error) {
	atqa, bits, err := c.transceive(ctx, []byte{cmdWUPA}, 7)
	if err != nil {
		return nil, err
	}
	if len(atqa) != 2 || bits != 0 {
		return nil, fmt.Errorf("%w: ATQA of %d bytes and %d bits", ErrTagFrame, len(atqa), bits)
	}
	return c.selectUID(ctx)
}

// selectUID runs the anticollision step and SELECT for each cascade level
// until the SAK says the UID is complete (ISO/IEC 14443-3 6.5.3).
func (c *Chip) selectUID(ctx context.Context) ([]byte, error) {
	uid := make([]byte, 0, 10)
	fail := func(err error) ([]byte, error) {
		clear(uid[:cap(uid)])
		return nil, err
	}
	for level, sel := range selCodes {
		part, bits, err := c.transceive(ctx, []byte{sel, nvbAnticol}, 0)
		if err != nil {
			return fail(err)
		}
		defer clear(part)
		if len(part) != 5 || bits != 0 {
			return fail(fmt.Errorf("%w: cascade level %d answered %d bytes", ErrTagFrame, level+1, len(part)))
		}
		if part[0]^part[1]^part[2]^part[3] != part[4] {
			return fail(fmt.Errorf("%w: cascade level %d: wrong BCC", ErrTagFrame, level+1))
		}
		frame := appendCRCA(append([]byte{sel, nvbSelect}, part...))
		sak, bits, err := c.transceive(ctx, frame, 0)
		clear(frame)
		if err != nil {
			return fail(err)
		}
		if len(sak) != 3 || bits != 0 || !validCRCA(sak) {
			return fail(fmt.Errorf("%w: cascade level %d: SAK of %d bytes or with a wrong CRC_A", ErrTagFrame, level+1, len(sak)))
		}
		more := sak[0]&sakCascade != 0
		c.sak = sak[0]
		switch {
		case more && part[0] != cascadeTag:
			return fail(fmt.Errorf("%w: cascade level %d: SAK says the UID goes on, but no cascade tag", ErrTagFrame, level+1))
		case more:
			uid = append(uid, part[1:4]...)
			continue
		case part[0] == cascadeTag:
			return fail(fmt.Errorf("%w: cascade level %d: a cascade tag, but the SAK says the UID is complete", ErrTagFrame, level+1))
		}
		return append(uid, part[:4]...), nil
	}
	return fail(fmt.Errorf("%w: the SAK asks for a fourth cascade level", ErrTagFrame))
}

// halt sends HLTA. A tag does not answer it; only a chip failure is an
// error.
func (c *Chip) halt(ctx context.Context) error {
	_, _, err := c.transceive(ctx, appendCRCA([]byte{cmdHLTA, 0x00}), 0)
	if err != nil && !errors.Is(err, poll.ErrNoTag) {
		return err
	}
	return nil
}

// transceive sends data (txBits bits of its last byte; 0 means 8) and
// returns the answer and the valid bits of its last byte (0 means 8),
// with the sequence of the datasheet's section 10.3.1.8: idle, clear the
// interrupts and the FIFO, load it, Transceive with StartSend. No answer
// within the chip's timer is poll.ErrNoTag.
func (c *Chip) transceive(ctx context.Context, data []byte, txBits byte) ([]byte, byte, error) {
	for _, w := range [][2]byte{{regCommand, cmdIdle}, {regCommIrq, irqClearAll}, {regFIFOLevel, flushFIFO}} {
		if err := c.bus.write(int(w[0]), w[1]); err != nil {
			return nil, 0, chipErr(err)
		}
	}
	if err := c.bus.writeFIFO(data); err != nil {
		return nil, 0, chipErr(err)
	}
	for _, w := range [][2]byte{{regBitFraming, txBits}, {regCommand, cmdTransceive}, {regBitFraming, startSend | txBits}} {
		if err := c.bus.write(int(w[0]), w[1]); err != nil {
			return nil, 0, chipErr(err)
		}
	}
	irq, err := c.waitIRQ(ctx)
	if err != nil {
		return nil, 0, err
	}
	if irq&(irqRx|irqIdle) == 0 {
		return nil, 0, poll.ErrNoTag // the timer ran out: nobody answered
	}
	e, err := c.bus.read(regError)
	if err != nil {
		return nil, 0, chipErr(err)
	}
	switch {
	case e&errOverflow != 0:
		return nil, 0, fmt.Errorf("rc522: FIFO overflow (ErrorReg 0x%02X): %w", e, poll.ErrChip)
	case e&errColl != 0:
		return nil, 0, fmt.Errorf("%w: bit collision", ErrTagFrame)
	case e&(errProtocol|errParity|errCRC) != 0:
		return nil, 0, fmt.Errorf("%w: ErrorReg 0x%02X", ErrTagFrame, e)
	}
	n, err := c.bus.read(regFIFOLevel)
	if err != nil {
		return nil, 0, chipErr(err)
	}
	if n > fifoSize {
		return nil, 0, fmt.Errorf("rc522: FIFOLevelReg reads %d, more than the FIFO's 64 bytes: the SPI link is garbled, check the wiring: %w", n, poll.ErrChip)
	}
	var resp []byte
	if n > 0 {
		if resp, err = c.bus.readFIFO(int(n)); err != nil {
			return nil, 0, chipErr(err)
		}
	}
	ctl, err := c.bus.read(regControl)
	if err != nil {
		clear(resp)
		return nil, 0, chipErr(err)
	}
	return resp, ctl & 0x07, nil
}

// waitIRQ reads CommIrqReg until the answer arrived or the timer ran out.
// The chip's timer ends every exchange within 25 ms; a chip whose
// interrupts never come is not working.
func (c *Chip) waitIRQ(ctx context.Context) (byte, error) {
	deadline := time.Now().Add(irqDeadline)
	for {
		irq, err := c.bus.read(regCommIrq)
		if err != nil {
			return 0, chipErr(err)
		}
		if irq&(irqRx|irqIdle|irqTimer) != 0 {
			return irq, nil
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("rc522: no interrupt from the chip within %v of a transceive (CommIrqReg 0x%02X): it is not working: %w", irqDeadline, irq, ErrWiring)
		}
		if err := c.sleep(ctx, pollInterval); err != nil {
			return 0, err
		}
	}
}

// appendCRCA appends the CRC_A of b, low byte first (ISO/IEC 14443-3
// annex B: CRC-16/CCITT reflected, preset 0x6363).
func appendCRCA(b []byte) []byte {
	crc := uint16(0x6363)
	for _, x := range b {
		x ^= byte(crc)
		x ^= x << 4
		crc = crc>>8 ^ uint16(x)<<8 ^ uint16(x)<<3 ^ uint16(x)>>4
	}
	return append(b, byte(crc), byte(crc>>8))
}

// validCRCA reports whether the last two bytes of b are the CRC_A of the
// others.
func validCRCA(b []byte) bool {
	if len(b) < 3 {
		return false
	}
	want := appendCRCA(append([]byte(nil), b[:len(b)-2]...))
	return want[len(want)-2] == b[len(b)-2] && want[len(want)-1] == b[len(b)-1]
}
