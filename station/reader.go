package station

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
	"github.com/agentcall/acbridge/nfc/poll"
)

// Reader is an NFC reader handle, PC/SC, keyboard-style or a polled chip;
// Close stops the goroutines it owns and waits for them.
type Reader struct {
	nfc.Reader
	// wait is the reader's own WaitReader (nfc.Dev, poll.Reader); nil
	// for a keyboard reader, which is there once opened.
	wait interface {
		WaitReader(context.Context) nfc.Status
	}
	close func() error
	done  chan struct{}
}

// runner is a reader with a blocking Run (nfc.Dev, poll.Reader).
type runner interface {
	nfc.Reader
	WaitReader(context.Context) nfc.Status
	Run(context.Context) error
	Close() error
}

// start runs rd until ctx ends or Close. A Run that fails for another
// reason is logged to log (nil: discard).
func start(ctx context.Context, rd runner, log *slog.Logger) *Reader {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Reader{Reader: rd, wait: rd, close: rd.Close, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := rd.Run(ctx); err != nil && !errors.Is(err, nfc.ErrClosed) && ctx.Err() == nil {
			log.Error("reader stopped", "err", err)
		}
	}()
	return r
}

// StartReader opens a PC/SC reader with o and runs it until ctx ends or
// Close. A Run that fails for another reason is logged to log (nil:
// discard).
func StartReader(ctx context.Context, o *nfc.Options, log *slog.Logger) (*Reader, error) {
	dev, err := nfc.New(ctx, o)
	if err != nil {
		return nil, err
	}
	return start(ctx, dev, log), nil
}

// StartKeyboard opens a keyboard-style reader (nfc.driver = "keyboard").
func StartKeyboard(o *keyboard.Options) (*Reader, error) {
	kb, err := keyboard.Open(o)
	if err != nil {
		return nil, err
	}
	done := make(chan struct{})
	close(done) // Close waits for the reader's own goroutine
	return &Reader{Reader: kb, close: kb.Close, done: done}, nil
}

// WaitReader waits until the reader is found (nfc.Dev.WaitReader,
// poll.Reader.WaitReader); a keyboard reader is there once opened.
func (r *Reader) WaitReader(ctx context.Context) nfc.Status {
	if r.wait == nil {
		return r.Status()
	}
	return r.wait.WaitReader(ctx)
}

// Close closes the handle and waits for its goroutines.
func (r *Reader) Close() error {
	err := r.close()
	<-r.done
	return err
}

// NFCOptions is what StartNFC needs besides the [nfc] table.
type NFCOptions struct {
	Aliaser nfc.Aliaser
	Scope   string // keystore.CanonicalScope of the agent
	Logger  *slog.Logger
	// OnState is told of each status change (see nfc.Options.OnState).
	OnState func(nfc.Status)
	// Debounce is the PC/SC status debounce (nfc.Options.Debounce).
	Debounce time.Duration
}

// StartNFC opens the reader c's driver names — PC/SC, a keyboard-style
// reader, or a polled chip (PN532, RC522) — and runs it until ctx ends or
// Close: the daemon and `acbridge scan` open readers only through it.
func StartNFC(ctx context.Context, c config.NFC, o NFCOptions) (*Reader, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	o.Aliaser = WithReferences(c, o.Aliaser, log)
	open, name, polled := Polled(c, log)
	switch {
	case c.Driver == "keyboard":
		return StartKeyboard(&keyboard.Options{Path: c.Device, Aliaser: o.Aliaser, Scope: o.Scope, Logger: log, OnState: o.OnState})
	case polled:
		return StartPolled(ctx, &poll.Options{Open: open, Name: name, Aliaser: o.Aliaser, Scope: o.Scope, Logger: log, OnState: o.OnState}, log)
	}
	return StartReader(ctx, &nfc.Options{Reader: c.Reader, Buzzer: c.Buzzer, Aliaser: o.Aliaser, Scope: o.Scope, Logger: log,
		OnState: o.OnState, Debounce: o.Debounce}, log)
}

// NFCFromFlags is the [nfc] table a technician's flags stand for (`acbridge
// scan --driver --device --reader`): the defaults, the driver keyboard when
// only a device is given, else pcsc, and the device in the key the driver
// reads (an RC522's spidev node; its reset line stays the default GPIO25).
// A combination that names no reader is an error to show as a usage error.
func NFCFromFlags(driver, device, reader string) (config.NFC, error) {
	if driver == "" {
		driver = "pcsc"
		if device != "" {
			driver = "keyboard"
		}
	}
	n := config.Defaults().NFC
	n.Driver, n.Device, n.Reader = driver, device, reader
	if driver == "rc522" {
		n.SPIDevice, n.Device = device, ""
	}
	switch {
	case !slices.Contains(config.NFCDrivers, driver):
		return n, fmt.Errorf("--driver %.32q: unknown driver (%s)", driver, strings.Join(config.NFCDrivers, ", "))
	case driver != "pcsc" && device == "":
		return n, fmt.Errorf("--driver %s needs --device (`acbridge devices` lists the candidates)", driver)
	case driver == "pcsc" && device != "":
		return n, errors.New("--device is for --driver keyboard, pn532 or rc522; a PC/SC reader is chosen with --reader")
	}
	return n, nil
}
