package station

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/keyboard"
	"github.com/agentcall/acbridge/nfc/poll"
)

// Reader is an NFC reader handle, PC/SC, keyboard-style or a polled chip;
// Close stops the goroutines it owns and waits for them.
type Reader struct {
	nfc.Reader
	dev    *nfc.Dev     // nil for a keyboard reader
	polled *poll.Reader // a polled chip's reader (StartPolled)
	close  func() error
	done   chan struct{}
}

// StartReader opens a PC/SC reader with o and runs it until ctx ends or
// Close. A Run that fails for another reason is logged to log (nil:
// discard).
func StartReader(ctx context.Context, o *nfc.Options, log *slog.Logger) (*Reader, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dev, err := nfc.New(ctx, o)
	if err != nil {
		return nil, err
	}
	r := &Reader{Reader: dev, dev: dev, close: dev.Close, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := dev.Run(ctx); err != nil && !errors.Is(err, nfc.ErrClosed) && ctx.Err() == nil {
			log.Error("reader stopped", "err", err)
		}
	}()
	return r, nil
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

// WaitReader waits until a PC/SC reader is found (see nfc.Dev.WaitReader);
// a keyboard reader is there once opened.
func (r *Reader) WaitReader(ctx context.Context) nfc.Status {
	if r.polled != nil {
		return r.polled.WaitReader(ctx)
	}
	if r.dev == nil {
		return r.Status()
	}
	return r.dev.WaitReader(ctx)
}

// Close closes the handle and waits for its goroutines.
func (r *Reader) Close() error {
	err := r.close()
	<-r.done
	return err
}
