package station

import (
	"context"
	"log/slog"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
)

// Polled returns the opener of the reader chip that c's driver polls
// (package nfc/poll) and the name Status shows for it; ok is false for
// drivers that are no polled chip (pcsc, keyboard). A chip driver plugs in
// with one case here; run, scan, accept and doctor then use it.
func Polled(c config.NFC, log *slog.Logger) (open poll.OpenFunc, name string, ok bool) {
	switch c.Driver {
	case "pn532":
		return pn532.Opener(&pn532.Options{Path: c.Device, Logger: log}), "PN532 on " + c.Device, true
	case "rc522":
		return rc522.OpenFunc(RC522Options(c, log)), "RC522 on " + c.SPIDevice, true
	}
	return nil, "", false
}

// StartPolled runs a polled reader chip with o until ctx ends or Close; a
// board that is absent or stops answering is retried in the background
// and reported through o.OnState. A Run that fails for another reason is
// logged to log (nil: discard).
func StartPolled(ctx context.Context, o *poll.Options, log *slog.Logger) (*Reader, error) {
	pr, err := poll.New(o)
	if err != nil {
		return nil, err
	}
	return start(ctx, pr, log), nil
}
