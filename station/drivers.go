package station

import (
	"context"
	"log/slog"
	"slices"

	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
)

// ReaderDriver is one row of the reader driver table (in the manner of
// periph's driver registry and database/sql.Register): everything
// check-config, the daemon, `acbridge devices`, doctor, accept and scan
// know of a value of nfc.driver. A new reader driver is its package and
// one row in readerDrivers.
type ReaderDriver struct {
	Name string // the value of nfc.driver
	// Device returns the [nfc] key the driver reads its device from,
	// which scan's --device fills; nil: the driver takes no device (PC/SC
	// chooses by reader name).
	Device func(n *config.NFC) *string
	// Check adds the problems of the keys only this driver reads; chips
	// describes the machine's GPIO chips. nil: nothing to check.
	Check func(cfg *config.Config, add func(string, ...any), chips gpio.ChipLister)
	// Open starts the reader, which runs until ctx ends or Close.
	Open func(ctx context.Context, c config.NFC, o NFCOptions) (*Reader, error)
	// List is the `acbridge devices` section of what the driver's device
	// key can name; a zero Section: none.
	List Section
	// Accept are the driver's own acceptance steps, run when it is the
	// configured driver and skipped otherwise.
	Accept []AcceptStep
}

// AcceptStep is a driver's acceptance step (`acbridge accept`, doctor):
// it opens the device the configuration names and asks what only a
// working device answers. notes go into the report; an error that wraps a
// health.Warnable gets that problem's fix.
type AcceptStep struct {
	ID, Title string
	Run       func(ctx context.Context, e *AcceptEnv) (notes []string, err error)
}

// AcceptEnv is what an AcceptStep reads.
type AcceptEnv struct {
	Config *config.Config
	Logger *slog.Logger // nil: discard
	// RC522 replaces the options the rc522 driver opens its board with
	// (a simulated board); nil: the configured one.
	RC522 *RC522Board
	// Cmdline is the kernel command line's file; "": /proc/cmdline.
	Cmdline string
}

// RC522Board are the options of an RC522 board (AcceptEnv.RC522,
// NFCOptions.RC522), so that callers need not import its package.
type RC522Board = rc522.Options

// PCSC is the PC/SC driver's name, the default of nfc.driver: the
// environment steps of pcscd concern it alone.
const PCSC = "pcsc"

// keyboardDriver is the keyboard-style reader's, whose input device the
// evdev acceptance step tells from a keypad.
const keyboardDriver = "keyboard"

// rc522Driver is the RC522's, whose reset line is a GPIO output.
const rc522Driver = "rc522"

// readerDrivers is the table, in `acbridge devices` order.
var readerDrivers = []ReaderDriver{
	{
		Name: PCSC,
		Open: func(ctx context.Context, c config.NFC, o NFCOptions) (*Reader, error) {
			return StartReader(ctx, &nfc.Options{Reader: c.Reader, Buzzer: c.Buzzer, Aliaser: o.Aliaser, Scope: o.Scope, Logger: o.Logger,
				OnState: o.OnState, Debounce: o.Debounce}, o.Logger)
		},
		List: Section{Name: "nfc", Title: "NFC readers (PC/SC)", List: listNFCReaders},
	},
	{
		Name:   keyboardDriver,
		Device: func(n *config.NFC) *string { return &n.Device },
		Check:  needDevice("nfc.device: the keyboard driver needs the reader's input device, a /dev/input/by-id/…-event-kbd link (ls /dev/input/by-id)"),
		Open: func(_ context.Context, c config.NFC, o NFCOptions) (*Reader, error) {
			return StartKeyboard(&keyboard.Options{Path: c.Device, Aliaser: o.Aliaser, Scope: o.Scope, Logger: o.Logger, OnState: o.OnState})
		},
		List: Section{Name: "keyboardReaders", Title: "Keyboard-class input devices (nfc.device, nfc.driver = \"keyboard\"; they type the UID and cannot read a tag's NDEF web address)", List: listKeyboardReaders},
	},
	{
		Name:   "pn532",
		Device: func(n *config.NFC) *string { return &n.Device },
		Check:  needDevice("nfc.device: the pn532 driver needs the serial port the board is wired to, such as /dev/serial0 (`acbridge devices` lists the serial ports)"),
		Open:   polled(pn532Chip),
		List:   Section{Name: "serialPorts", Title: "Serial ports (nfc.device, nfc.driver = \"pn532\")", List: listSerialPorts},
		Accept: []AcceptStep{{ID: "env.pn532", Title: "the PN532 answers on its serial port (nfc.driver = \"pn532\")", Run: acceptPN532}},
	},
	{
		Name:   rc522Driver,
		Device: func(n *config.NFC) *string { return &n.SPIDevice },
		Check:  checkRC522,
		Open:   polled(rc522Chip),
		List:   Section{Name: "spiPorts", Title: "SPI ports (nfc.spi_device, nfc.driver = \"rc522\")", List: listSPIPorts},
		Accept: []AcceptStep{{ID: "env.rc522", Title: "the RC522 answers on SPI (nfc.driver = \"rc522\")", Run: acceptRC522}},
	},
}

// ReaderDrivers returns the reader driver table.
func ReaderDrivers() []ReaderDriver { return slices.Clone(readerDrivers) }

// ReaderDriverNames are the values nfc.driver accepts.
func ReaderDriverNames() []string {
	out := make([]string, len(readerDrivers))
	for i, d := range readerDrivers {
		out[i] = d.Name
	}
	return out
}

// LookupReaderDriver returns the row of the driver named name.
func LookupReaderDriver(name string) (ReaderDriver, bool) {
	i := slices.IndexFunc(readerDrivers, func(d ReaderDriver) bool { return d.Name == name })
	if i < 0 {
		return ReaderDriver{}, false
	}
	return readerDrivers[i], true
}

// needDevice is the Check of a driver that cannot guess nfc.device.
func needDevice(problem string) func(*config.Config, func(string, ...any), gpio.ChipLister) {
	return func(cfg *config.Config, add func(string, ...any), _ gpio.ChipLister) {
		if cfg.NFC.Device == "" {
			add("%s", problem)
		}
	}
}

// chipOpener returns the opener of a polled chip for c and the name its
// Status shows.
type chipOpener func(c config.NFC, o NFCOptions) (open poll.OpenFunc, name string)

// polled is the Open of a chip that package nfc/poll polls: a board that
// is absent or stops answering is retried in the background and reported
// through o.OnState.
func polled(chip chipOpener) func(context.Context, config.NFC, NFCOptions) (*Reader, error) {
	return func(ctx context.Context, c config.NFC, o NFCOptions) (*Reader, error) {
		open, name := chip(c, o)
		pr, err := poll.New(&poll.Options{Open: open, Name: name, Aliaser: o.Aliaser, Scope: o.Scope, Logger: o.Logger, OnState: o.OnState})
		if err != nil {
			return nil, err
		}
		return start(ctx, pr, o.Logger), nil
	}
}

func rc522Chip(c config.NFC, o NFCOptions) (poll.OpenFunc, string) {
	ro := o.RC522
	if ro == nil {
		ro = RC522Options(c, o.Logger)
	}
	return rc522.OpenFunc(ro), "RC522 on " + c.SPIDevice
}
