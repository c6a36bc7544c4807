package nfc

import (
	"context"
	"fmt"
	"time"

	"github.com/ebfe/scard"
)

// getDataUID is the PC/SC part 3 GET DATA pseudo-APDU for the UID, Le 00:
// "all bytes".
var getDataUID = []byte{0xFF, 0xCA, 0x00, 0x00, 0x00}

// Rereads of a tag whose read failed in a way holding it still may cure
// (Retryable): a tag at the edge of the field can fail GET DATA and still
// be reported present, with no new insertion to trigger another read.
const (
	maxRereads  = 2
	rereadPause = 250 * time.Millisecond
)

// readTag reads the present tag and delivers the result. A retryable
// failure is delivered once (OnUnread tells the person) and the same
// presence is read again, quietly, up to maxRereads times. It returns only
// errors that end the PC/SC context.
func (d *Dev) readTag(ctx context.Context, sc *scard.Context, reader string, p *presence, armedAt time.Time) error {
	presentAt := p.seenAt
	if armedAt.After(presentAt) {
		presentAt = armedAt // the tag was there before the window: it counts from the arming
	}
	p.consumed = true
	s, err := d.identify(sc, reader)
	if err != nil {
		return err
	}
	s.Reader, s.PresentAt = reader, presentAt
	reread := p.rereads > 0
	if Retryable(s.Err) && p.rereads < maxRereads {
		p.consumed = false
		p.rereads++
		p.rereadAt = time.Now().Add(rereadPause)
	}
	switch {
	case s.Err != nil && reread:
		d.log.Debug("nfc: tag not read again", "reader", reader, "err", s.Err)
		return nil
	case s.Err != nil:
		d.log.Warn("nfc: tag not read", "reader", reader, "err", s.Err)
	case s.Unidentifiable:
		d.log.Info("nfc: tag with a random UID (phone or emulated card): unidentifiable, not sent", "reader", reader)
	default:
		d.log.Info("nfc: tag read", "reader", reader, "objectRef", LoggedRef(s.Object),
			"latency", s.ReadyAt.Sub(s.PresentAt), "readerTime", s.ReaderTime)
	}
	d.deliver(ctx, s)
	return nil
}

// identify reads the UID and turns it into the result; the UID does not
// outlive this call. Errors returned end the context; per-tap problems go
// in Scan.Err.
func (d *Dev) identify(sc *scard.Context, reader string) (Scan, error) {
	t0 := time.Now()
	card, err := sc.Connect(reader, scard.ShareShared, scard.ProtocolAny)
	if err != nil {
		if contextEnding(err) {
			return Scan{}, err
		}
		now := time.Now()
		return Scan{Err: readError(err), ReaderTime: now.Sub(t0), ReadyAt: now}, nil
	}
	d.quiet(card, reader)
	rsp, terr := card.Transmit(getDataUID)
	defer clear(rsp)
	s := Scan{}
	var uid []byte
	if terr == nil {
		uid, s.Err = parseGetData(rsp)
		switch {
		case s.Err != nil:
		case RandomUID(uid):
			s.Unidentifiable = true
		default:
			// The tag's memory is read on the same connection, while the
			// tag is still selected.
			s.Object, s.Note, s.Err = ObjectOf(d.opts.Aliaser, d.opts.Scope, uid, tagMemory(card))
		}
	}
	if derr := card.Disconnect(scard.LeaveCard); derr != nil {
		d.log.Debug("nfc: disconnect", "err", derr)
	}
	s.ReaderTime = time.Now().Sub(t0)
	if terr != nil {
		if contextEnding(terr) {
			return Scan{}, terr
		}
		s.Err = readError(terr)
	}
	s.ReadyAt = time.Now()
	return s, nil
}

// parseGetData returns the UID from a GET DATA answer (a slice of rsp).
// Errors carry the status word or the length, never the bytes.
func parseGetData(rsp []byte) ([]byte, error) {
	if len(rsp) < 2 {
		return nil, &TagError{}
	}
	n := len(rsp) - 2
	sw := uint16(rsp[n])<<8 | uint16(rsp[n+1])
	switch sw {
	case swOK:
		if n < minUIDLen || n > maxUIDLen {
			return nil, &TagError{SW: sw, Len: n}
		}
		return rsp[:n], nil
	case swFuncNotSupp, swINSNotSupp, swCLANotSupp:
		return nil, fmt.Errorf("%w (it answered %04X)", ErrGetDataUnsupported, sw)
	}
	return nil, &TagError{SW: sw}
}

// RandomUID reports whether uid is a random one (ISO 14443-3: 4 bytes
// starting 0x08; phones and emulated cards), which identifies nothing and
// is never sent. Stand-in readers (nfctest) apply the same rule.
func RandomUID(uid []byte) bool {
	return len(uid) == 4 && uid[0] == randomUIDFirst
}

// deliver hands a result to Scans if its window is still open. An
// identified tag ends the window; the result is sent before the window's
// done channel closes, so Scan finds it.
func (d *Dev) deliver(ctx context.Context, s Scan) {
	d.mu.Lock()
	if !d.armed {
		d.mu.Unlock()
		d.log.Info("nfc: the armed window ended while the tag was read; result dropped")
		return
	}
	var done chan struct{}
	if s.Err == nil && !s.Unidentifiable {
		d.armed = false
		done, d.winDone = d.winDone, nil
	}
	d.mu.Unlock()
	select {
	case d.scans <- s:
	case <-ctx.Done():
	}
	if done != nil {
		close(done)
		d.signal(d.kick)
	}
}
