package station

import (
	"context"
	"errors"
	"log/slog"

	"github.com/agentcall/acbridge/nfc"
)

// Reader is an NFC reader handle whose Run goroutine it owns: Close stops
// it and waits for it.
type Reader struct {
	*nfc.Dev
	done chan struct{}
}

// StartReader opens a reader with o and runs it until ctx ends or Close.
// A Run that fails for another reason is logged to log (nil: discard).
func StartReader(ctx context.Context, o *nfc.Options, log *slog.Logger) (*Reader, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dev, err := nfc.New(ctx, o)
	if err != nil {
		return nil, err
	}
	r := &Reader{Dev: dev, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		if err := dev.Run(ctx); err != nil && !errors.Is(err, nfc.ErrClosed) && ctx.Err() == nil {
			log.Error("reader stopped", "err", err)
		}
	}()
	return r, nil
}

// Close closes the handle and waits for its Run to return.
func (r *Reader) Close() error {
	err := r.Dev.Close()
	<-r.done
	return err
}
