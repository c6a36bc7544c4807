package pn532

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/nfc/poll"
)

// Commands (UM0701-02 section 7.2); the answer's code is the command's
// plus one.
const (
	cmdGetFirmwareVersion  = 0x02
	cmdSAMConfiguration    = 0x14
	cmdRFConfiguration     = 0x32
	cmdInListPassiveTarget = 0x4A
)

// RFConfiguration items (section 7.3.1).
const (
	cfgRFField    = 0x01
	cfgMaxRetries = 0x05
)

// wakeUp is the HSU wake-up (section 7.2.11): 0x55 then zeros long enough
// for the PN532's oscillator to start; the command that follows must be
// SAMConfiguration.
var wakeUp = append([]byte{0x55, 0x55}, make([]byte, 14)...)

// ackWait bounds the wait for a command's ACK, which the PN532 sends at
// once (the answer may take longer).
const ackWait = 100 * time.Millisecond

// Options configures Open. Path is required.
type Options struct {
	// Path is the serial port: /dev/serial0, /dev/ttyAMA0, /dev/ttyS0 or
	// a /dev/serial/by-id link for a USB adapter.
	Path string
	// Timeout bounds each answer (default 1 s).
	Timeout time.Duration
	// Logger receives diagnostics (never a UID); nil discards them.
	Logger *slog.Logger
}

// Firmware is GetFirmwareVersion's answer.
type Firmware struct {
	IC      byte // 0x32 for a PN532
	Ver     byte
	Rev     byte
	Support byte // bit 0 ISO/IEC 14443 type A, bit 1 type B, bit 2 ISO 18092
}

func (f Firmware) String() string {
	return fmt.Sprintf("PN5%02x firmware %d.%d (support %#02x)", f.IC, f.Ver, f.Rev, f.Support)
}

// Chip is an open PN532. Its methods are for one goroutine at a time.
type Chip struct {
	p       *port
	timeout time.Duration
	log     *slog.Logger
	fw      Firmware
	sak     byte // SEL_RES of the tag the last Poll found
}

var (
	_ poll.Chip   = (*Chip)(nil)
	_ poll.Pinger = (*Chip)(nil)
)

// Opener returns a poll.OpenFunc that opens the PN532 o names.
func Opener(o *Options) poll.OpenFunc {
	oc := *o
	return func(ctx context.Context) (poll.Chip, error) { return Open(ctx, &oc) }
}

// Open opens the port, wakes the PN532, puts it in normal mode, bounds its
// passive activation retries, switches its RF field off and reads its
// firmware version. A board that does not answer is an error wrapping
// poll.ErrChip that names the usual causes.
func Open(ctx context.Context, o *Options) (*Chip, error) {
	if o == nil || o.Path == "" {
		return nil, errors.New("pn532: no serial port configured: set nfc.device to the UART the board is wired to (for example /dev/serial0)")
	}
	p, err := openPort(o.Path)
	if err != nil {
		return nil, err
	}
	c := &Chip{p: p, timeout: o.Timeout, log: o.Logger}
	if c.timeout <= 0 {
		c.timeout = time.Second
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if err := c.setup(ctx); err != nil {
		p.close()
		return nil, err
	}
	c.log.Info("pn532: ready", "port", o.Path, "firmware", c.fw.String())
	return c, nil
}

func (c *Chip) setup(ctx context.Context) error {
	if err := c.p.write(wakeUp, c.deadline(ctx)); err != nil {
		return fmt.Errorf("%w: pn532: writing to %s: %v", poll.ErrChip, c.p.path, err)
	}
	// Normal mode; the timeout (x 50 ms) only matters in virtual card
	// mode; the PN532 drives P70_IRQ.
	if _, err := c.exchange(ctx, cmdSAMConfiguration, 0x01, 0x14, 0x01); err != nil {
		return err
	}
	// MxRtyATR default, MxRtyPSL 1, MxRtyPassiveActivation 1: the default
	// FF retries for ever, and a poll without a tag would never return.
	if _, err := c.exchange(ctx, cmdRFConfiguration, cfgMaxRetries, 0xFF, 0x01, 0x01); err != nil {
		return err
	}
	if err := c.FieldOff(ctx); err != nil {
		return err
	}
	fw, err := c.Firmware(ctx)
	if err != nil {
		return err
	}
	if fw.IC != 0x32 {
		c.log.Warn("pn532: the board reports another IC than the PN532", "ic", fmt.Sprintf("%#02x", fw.IC))
	}
	return nil
}

// Firmware asks GetFirmwareVersion; it does not touch the RF field.
func (c *Chip) Firmware(ctx context.Context) (Firmware, error) {
	a, err := c.exchange(ctx, cmdGetFirmwareVersion)
	if err != nil {
		return Firmware{}, err
	}
	if len(a) < 4 {
		return Firmware{}, c.malformed("GetFirmwareVersion", len(a))
	}
	c.fw = Firmware{IC: a[0], Ver: a[1], Rev: a[2], Support: a[3]}
	return c.fw, nil
}

// Ping implements poll.Pinger.
func (c *Chip) Ping(ctx context.Context) error {
	_, err := c.Firmware(ctx)
	return err
}

// Poll implements poll.Chip with InListPassiveTarget, one target at
// 106 kbps type A; the command switches the field on.
func (c *Chip) Poll(ctx context.Context) ([]byte, error) {
	a, err := c.exchange(ctx, cmdInListPassiveTarget, 0x01, 0x00)
	if err != nil {
		return nil, err
	}
	defer clear(a)
	uid, err := parseTarget(a)
	if err != nil {
		return nil, fmt.Errorf("%w: pn532 on %s: %w", poll.ErrChip, c.p.path, err)
	}
	if uid == nil {
		return nil, poll.ErrNoTag
	}
	c.sak = a[4]
	return uid, nil
}

// parseTarget reads InListPassiveTarget's answer for type A (section
// 7.3.5): NbTg, then Tg, SENS_RES (2), SEL_RES, NFCIDLength, NFCID1 and
// an optional ATS (ignored). It returns a copy of NFCID1, nil for no
// target. SEL_RES is the final SAK, so its cascade bit (ISO/IEC 14443-3,
// 0x04: UID not complete) set means a garbled answer. SENS_RES's UID size
// bits are not checked against NFCIDLength: clone tags get them wrong, and
// the length is what the anticollision actually produced.
func parseTarget(a []byte) ([]byte, error) {
	if len(a) < 1 {
		return nil, fmt.Errorf("%w: InListPassiveTarget answered no NbTg", ErrFrame)
	}
	switch nb := a[0]; {
	case nb == 0:
		return nil, nil
	case nb > 1:
		return nil, fmt.Errorf("%w: InListPassiveTarget listed %d targets; one was asked for", ErrFrame, nb)
	}
	const head = 1 + 1 + 2 + 1 + 1 // NbTg Tg SENS_RES SEL_RES NFCIDLength
	if len(a) < head {
		return nil, fmt.Errorf("%w: InListPassiveTarget answered %d bytes for a target", ErrFrame, len(a))
	}
	if a[4]&0x04 != 0 {
		return nil, fmt.Errorf("%w: SEL_RES %#02x says the UID is not complete", ErrFrame, a[4])
	}
	n := int(a[head-1])
	if n == 0 || len(a) < head+n {
		return nil, fmt.Errorf("%w: NFCIDLength %d does not fit a %d-byte answer", ErrFrame, n, len(a))
	}
	return append([]byte(nil), a[head:head+n]...), nil
}

// FieldOff implements poll.Chip: RFConfiguration item 1, RF off and no
// automatic RF collision avoidance.
func (c *Chip) FieldOff(ctx context.Context) error {
	_, err := c.exchange(ctx, cmdRFConfiguration, cfgRFField, 0x00)
	return err
}

// Close implements poll.Chip. Safe to call twice.
func (c *Chip) Close() error {
	if c.p == nil {
		return nil
	}
	err := c.p.close()
	c.p = nil
	return err
}

func (c *Chip) deadline(ctx context.Context) time.Time {
	d := time.Now().Add(c.timeout)
	if cd, ok := ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

func (c *Chip) malformed(cmd string, n int) error {
	return fmt.Errorf("%w: pn532 on %s: %w: %s answered %d bytes", poll.ErrChip, c.p.path, ErrFrame, cmd, n)
}
