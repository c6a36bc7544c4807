package station

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
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
	// RC522 replaces the options the rc522 driver opens its board with
	// (a simulated board); nil: the configured one.
	RC522 *RC522Board
}

// StartNFC opens the reader c's driver names (the reader driver table)
// and runs it until ctx ends or Close: the daemon, `acbridge scan` and
// `acbridge accept` open readers only through it.
func StartNFC(ctx context.Context, c config.NFC, o NFCOptions) (*Reader, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	o.Aliaser = WithReferences(c, o.Aliaser, o.Logger)
	d, ok := LookupReaderDriver(c.Driver)
	if !ok {
		return nil, fmt.Errorf("nfc.driver: unknown driver %q (%s)", clip(c.Driver), strings.Join(ReaderDriverNames(), ", "))
	}
	return d.Open(ctx, c, o)
}

// NFCFromFlags is the [nfc] table a technician's flags stand for (`acbridge
// scan --driver --device --reader`): the defaults, the driver keyboard when
// only a device is given, else pcsc, and the device in the key the driver
// reads (an RC522's spidev node; its reset line stays the default GPIO25).
// A combination that names no reader is an error to show as a usage error.
func NFCFromFlags(driver, device, reader string) (config.NFC, error) {
	if driver == "" {
		driver = PCSC
		if device != "" {
			driver = keyboardDriver
		}
	}
	n := config.Defaults().NFC
	n.Driver, n.Reader = driver, reader
	d, ok := LookupReaderDriver(driver)
	switch {
	case !ok:
		return n, fmt.Errorf("--driver %.32q: unknown driver (%s)", driver, strings.Join(ReaderDriverNames(), ", "))
	case d.Device == nil && device != "":
		var with []string
		for _, d := range readerDrivers {
			if d.Device != nil {
				with = append(with, d.Name)
			}
		}
		return n, fmt.Errorf("--device is for --driver %s; a %s reader is chosen with --reader", strings.Join(with, ", "), driver)
	case d.Device != nil && device == "":
		return n, fmt.Errorf("--driver %s needs --device (`acbridge devices` lists the candidates)", driver)
	case d.Device != nil:
		*d.Device(&n) = device
	}
	return n, nil
}
