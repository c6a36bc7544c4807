package rc522

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"strconv"
	"sync"
	"time"

	"periph.io/x/conn/v3/physic"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/host/v3/sysfs"

	"github.com/agentcall/acbridge/nfc/poll"
)

// DefaultDevice is the spidev node of SPI0 with chip select CE0, where
// RC522 boards are usually wired on a Raspberry Pi.
const DefaultDevice = "/dev/spidev0.0"

// DefaultSpeed is the SPI clock. The chip takes up to 10 MHz; 1 MHz stays
// reliable over the jumper wires these boards are connected with, and a
// poll still moves well under a kilobyte.
const DefaultSpeed = physic.MegaHertz

// Timings: the reset pulse and oscillator start-up (datasheet 8.8.1 and
// 8.8.2: tens of microseconds; boards add capacitors, so wait long), the
// unmodulated field a tag needs before the first command (ISO/IEC
// 14443-3 6.2: 5 ms), and how long to wait for the chip's own 25 ms timer
// before calling the chip dead.
const (
	resetPulse   = time.Millisecond
	startupWait  = 50 * time.Millisecond
	fieldSettle  = 5 * time.Millisecond
	irqDeadline  = 250 * time.Millisecond
	pollInterval = time.Millisecond
)

// ResetLine is the GPIO output wired to the chip's RST (NRSTPD) pin:
// high runs the chip, low holds it in hard power-down with the field off.
// A *gpiocdev.Line is one.
type ResetLine interface {
	SetValue(v int) error
	Close() error
}

// Options configures Open. The zero value opens DefaultDevice with no
// reset line.
type Options struct {
	// Device is the spidev node, /dev/spidevB.C; "" means DefaultDevice.
	Device string
	// OpenPort opens the SPI port; nil opens Device with periph's Linux
	// spidev driver. Tests pass a spitest.Playback.
	OpenPort func() (spi.PortCloser, error)
	// OpenReset requests the reset line, which Open pulses and Close
	// drives low; nil means RST is tied to 3.3 V and only the soft reset
	// is done.
	OpenReset func() (ResetLine, error)
	// Speed is the SPI clock; 0 means DefaultSpeed.
	Speed physic.Frequency
	// Logger receives diagnostics (never a UID); nil discards them.
	Logger *slog.Logger
}

// Chip is an opened MFRC522. It implements poll.Chip.
type Chip struct {
	log     *slog.Logger
	port    spi.PortCloser
	reset   ResetLine
	bus     bus
	version byte

	mu       sync.Mutex
	fieldOn  bool
	closed   bool
	closeErr error
	// sak is the last selected tag's final SAK; polled the SHA-256 of
	// the UID the last Poll read, so that Memory reads that tag and no
	// other without keeping its UID.
	sak    byte
	polled [sha256.Size]byte
}

var _ poll.Chip = (*Chip)(nil)

// OpenFunc returns the poll.OpenFunc that opens the chip with o, for
// poll's reader, which reopens it after a failure.
func OpenFunc(o *Options) poll.OpenFunc {
	return func(ctx context.Context) (poll.Chip, error) {
		c, err := Open(ctx, o)
		if err != nil {
			return nil, err // not a typed nil in the interface
		}
		return c, nil
	}
}

// Open opens the SPI port, resets the chip, checks that it is an MFRC522
// and sets it up with the RF field off. A chip that does not answer
// returns an error wrapping poll.ErrChip that says what to check.
func Open(ctx context.Context, o *Options) (*Chip, error) {
	if o == nil {
		o = &Options{}
	}
	c := &Chip{log: o.Logger}
	if c.log == nil {
		c.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	dev := o.Device
	if dev == "" {
		dev = DefaultDevice
	}
	openPort := o.OpenPort
	if openPort == nil {
		openPort = func() (spi.PortCloser, error) { return openSpidev(dev) }
	}
	port, err := openPort()
	if err != nil {
		return nil, portError(dev, err)
	}
	c.port = port
	speed := o.Speed
	if speed == 0 {
		speed = DefaultSpeed
	}
	conn, err := port.Connect(speed, spi.Mode0, 8)
	if err != nil {
		port.Close()
		return nil, fmt.Errorf("rc522: %s: setting SPI mode 0 at %s: %w: %w", dev, speed, err, poll.ErrChip)
	}
	c.bus = bus{conn}
	if o.OpenReset != nil {
		if c.reset, err = o.OpenReset(); err != nil {
			port.Close()
			return nil, fmt.Errorf("rc522: the reset line: %w: %w", err, poll.ErrChip)
		}
	}
	if err := c.start(ctx); err != nil {
		c.Close()
		return nil, err
	}
	c.log.Debug("rc522 ready", "device", dev, "version", fmt.Sprintf("0x%02X", c.version))
	return c, nil
}

// start resets the chip, checks VersionReg and loads initSequence.
func (c *Chip) start(ctx context.Context) error {
	if c.reset != nil {
		if err := c.hardReset(ctx); err != nil {
			return err
		}
	}
	v, err := c.bus.read(regVersion)
	if err != nil {
		return chipErr(err)
	}
	if _, ok := DescribeVersion(v); !ok {
		return versionError(v)
	}
	c.version = v
	if err := c.bus.write(regCommand, cmdSoftReset); err != nil {
		return chipErr(err)
	}
	if err := c.waitAwake(ctx); err != nil {
		return err
	}
	for _, w := range initSequence {
		if err := c.bus.write(int(w[0]), w[1]); err != nil {
			return chipErr(err)
		}
	}
	return nil
}

func (c *Chip) hardReset(ctx context.Context) error {
	if err := c.reset.SetValue(0); err != nil {
		return fmt.Errorf("rc522: driving the reset line low: %w: %w", err, poll.ErrChip)
	}
	if err := c.sleep(ctx, resetPulse); err != nil {
		return err
	}
	if err := c.reset.SetValue(1); err != nil {
		return fmt.Errorf("rc522: driving the reset line high: %w: %w", err, poll.ErrChip)
	}
	return c.sleep(ctx, startupWait)
}

// waitAwake waits for the soft reset to end: CommandReg's PowerDown bit
// stays set until the oscillator runs (datasheet 9.3.1.2).
func (c *Chip) waitAwake(ctx context.Context) error {
	deadline := time.Now().Add(irqDeadline)
	for {
		v, err := c.bus.read(regCommand)
		if err != nil {
			return chipErr(err)
		}
		if v&powerDown == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("rc522: the chip did not wake from its soft reset within %v (CommandReg 0x%02X): check its 3.3 V supply and the RST wire: %w", irqDeadline, v, ErrWiring)
		}
		if err := c.sleep(ctx, pollInterval); err != nil {
			return err
		}
	}
}

// Ping reads VersionReg again, without touching the RF field, so that a
// board unplugged or unpowered between windows is noticed before someone
// taps (poll's Reader calls it while idle).
func (c *Chip) Ping(ctx context.Context) error {
	if err := c.enter(ctx); err != nil {
		return err
	}
	defer c.mu.Unlock()
	v, err := c.bus.read(regVersion)
	if err != nil {
		return chipErr(err)
	}
	if v != c.version {
		if _, ok := DescribeVersion(v); ok {
			return fmt.Errorf("rc522: VersionReg changed from 0x%02X to 0x%02X: another board answers: %w", c.version, v, poll.ErrChip)
		}
		return versionError(v)
	}
	return nil
}

// Version is VersionReg as read at Open.
func (c *Chip) Version() byte { return c.version }

// DescribeVersion names a VersionReg value (datasheet 9.3.4.8; clone
// values as seen on boards sold as RC522); ok is false when the value is
// no MFRC522's.
func DescribeVersion(v byte) (name string, ok bool) {
	switch v {
	case 0x91:
		return "NXP MFRC522 version 1.0", true
	case 0x92:
		return "NXP MFRC522 version 2.0", true
	case 0x88:
		return "FM17522 clone (Fudan), works like an MFRC522", true
	case 0x12:
		return "unbranded MFRC522 clone", true
	}
	return "", false
}

// ErrWiring: the chip answers nothing sensible on SPI (VersionReg 0x00
// or 0xFF, no interrupt, no wake-up): wires, supply or reset. It wraps
// poll.ErrChip.
var ErrWiring = fmt.Errorf("the wiring or the supply is wrong: %w", poll.ErrChip)

// versionError says what a VersionReg value that is no MFRC522's means.
func versionError(v byte) error {
	if v == 0x00 || v == 0xFF {
		return fmt.Errorf("rc522: check wiring: VersionReg read 0x%02X, so nothing answers on MISO: "+
			"check MISO, MOSI, SCK and SDA (chip select CE0 for spidev0.0), the 3.3 V supply and that RST is high "+
			"(nfc.reset_line drives it; a board left in reset answers nothing): %w", v, ErrWiring)
	}
	return fmt.Errorf("rc522: VersionReg read 0x%02X, which is no MFRC522's (0x91, 0x92, or 0x88 for the FM17522 clone): "+
		"is this an RC522 board, on the chip select nfc.spi_device names? A PN532 board needs nfc.driver = \"pn532\": %w", v, poll.ErrChip)
}

// FieldOff switches the RF field off: tags lose power at once.
func (c *Chip) FieldOff(ctx context.Context) error {
	if err := c.enter(ctx); err != nil {
		return err
	}
	defer c.mu.Unlock()
	if err := c.bus.write(regTxControl, fieldOffValue); err != nil {
		return chipErr(err)
	}
	c.fieldOn = false
	return nil
}

// Close switches the field off, holds the chip in reset if a reset line
// is wired, and releases the line and the SPI port. Safe to call twice.
func (c *Chip) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return c.closeErr
	}
	c.closed = true
	var errs []error
	if c.fieldOn && c.bus.c != nil {
		errs = append(errs, c.bus.write(regTxControl, fieldOffValue))
		c.fieldOn = false
	}
	if c.reset != nil {
		errs = append(errs, c.reset.SetValue(0), c.reset.Close())
	}
	errs = append(errs, c.port.Close())
	if err := errors.Join(errs...); err != nil {
		c.closeErr = fmt.Errorf("rc522: closing: %w", err)
	}
	return c.closeErr
}

// enter locks c for one operation, or returns why it may not run, with c
// unlocked.
func (c *Chip) enter(ctx context.Context) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	if err := ctx.Err(); err != nil {
		c.mu.Unlock()
		return err
	}
	return nil
}

var errClosed = fmt.Errorf("rc522: the chip is closed: %w", poll.ErrChip)

func (c *Chip) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func chipErr(err error) error {
	return fmt.Errorf("rc522: %w: %w", err, poll.ErrChip)
}

var devicePattern = regexp.MustCompile(`^/dev/spidev([0-9]{1,3})\.([0-9]{1,3})$`)

// ParseDevice splits /dev/spidevB.C into bus B and chip select C.
func ParseDevice(dev string) (busNum, cs int, err error) {
	m := devicePattern.FindStringSubmatch(dev)
	if m == nil {
		return 0, 0, errors.New("must be a spidev node like /dev/spidev0.0 (SPI0, chip select CE0); ls /dev/spidev* lists them")
	}
	busNum, _ = strconv.Atoi(m[1])
	cs, _ = strconv.Atoi(m[2])
	return busNum, cs, nil
}

func openSpidev(dev string) (spi.PortCloser, error) {
	b, cs, err := ParseDevice(dev)
	if err != nil {
		return nil, err
	}
	// periph's error drops the cause (it formats it with %v); opening
	// the node first keeps it, for portError's fixes.
	f, err := os.OpenFile(dev, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	f.Close()
	p, err := sysfs.NewSPI(b, cs)
	if err != nil {
		return nil, err // not a typed nil in the interface
	}
	return p, nil
}

// portError says how to fix the usual failures of opening spidev.
func portError(dev string, err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("rc522: %s does not exist: enable SPI (raspi-config → Interface Options → SPI, or dtparam=spi=on in /boot/firmware/config.txt) and reboot; ls /dev/spidev* lists the ports: %w: %w", dev, err, poll.ErrChip)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("rc522: %s: permission denied: add the service user to group spi (usermod -aG spi acbridge); the systemd unit needs DeviceAllow=char-spi rw: %w: %w", dev, err, poll.ErrChip)
	}
	return fmt.Errorf("rc522: %s: %w: %w", dev, err, poll.ErrChip)
}
