package pn532

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// Frame identifiers (UM0701-02 section 6.2.1).
const (
	tfiHost  = 0xD4 // host to PN532
	tfiChip  = 0xD5 // PN532 to host
	tfiError = 0x7F // application-level error frame
)

// MaxData is the most a normal frame carries: TFI and PD0…PDn (LEN is one
// byte; 255 is the first byte of an extended frame's marker).
const MaxData = 254

var (
	ackFrame  = []byte{0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00}
	nackFrame = []byte{0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00}
)

// Frame errors; the driver wraps them in poll.ErrChip.
var (
	ErrChecksum = errors.New("pn532: frame checksum mismatch")
	ErrFrame    = errors.New("pn532: malformed frame")
)

// Encode builds the normal information frame carrying tfi and data.
func Encode(tfi byte, data []byte) ([]byte, error) {
	if len(data)+1 > MaxData {
		return nil, fmt.Errorf("%w: %d data bytes do not fit a normal frame", ErrFrame, len(data))
	}
	n := byte(len(data) + 1)
	f := make([]byte, 0, len(data)+8)
	f = append(f, 0x00, 0x00, 0xFF, n, -n, tfi)
	sum := tfi
	for _, b := range data {
		sum += b
	}
	f = append(f, data...)
	return append(f, -sum, 0x00), nil
}

// kind is what a received frame is.
type kind int

const (
	kindData kind = iota
	kindACK
	kindNACK
)

// maxGarbage bounds the bytes skipped while looking for a start code: a
// line full of noise ends in an error, not a loop.
const maxGarbage = 2 * (MaxData + 8)

// readFrame reads one frame: an ACK, a NACK, or a normal information frame
// whose TFI and data it returns (checked). Bytes before the start code
// 00 FF (the preamble, a previous frame's postamble, line noise) are
// skipped; the postamble is left to be skipped by the next read.
func (p *port) readFrame(deadline time.Time) (kind, []byte, error) {
	var skipped int
	var bad error // a start code whose length did not check: noise, or a garbled header
	for {
		n, lcs, err := p.header(deadline, &skipped)
		if err != nil {
			if bad != nil && errors.Is(err, errTimeout) {
				return 0, nil, bad
			}
			return 0, nil, err
		}
		switch {
		case n == 0x00 && lcs == 0xFF:
			return kindACK, nil, nil
		case n == 0xFF && lcs == 0x00:
			return kindNACK, nil, nil
		case n == 0xFF && lcs == 0xFF:
			return 0, nil, fmt.Errorf("%w: an extended frame, which no command here asks for", ErrFrame)
		case n+lcs != 0:
			// Line noise can hold 00 FF; keep looking for a real frame.
			bad = fmt.Errorf("%w: length %d with length checksum %#02x", ErrChecksum, n, lcs)
			continue
		case n == 0:
			return 0, nil, fmt.Errorf("%w: empty frame", ErrFrame)
		}
		return p.body(deadline, n)
	}
}

// header skips to the next start code and returns LEN and LCS.
func (p *port) header(deadline time.Time, skipped *int) (n, lcs byte, err error) {
	prev := byte(0x01)
	for ; ; *skipped++ {
		if *skipped > maxGarbage {
			return 0, 0, fmt.Errorf("%w: no start code in %d bytes", ErrFrame, *skipped)
		}
		b, err := p.readByte(deadline)
		if err != nil {
			return 0, 0, p.cut("before a frame", err, false)
		}
		if prev == 0x00 && b == 0xFF {
			break
		}
		prev = b
	}
	var hdr [2]byte
	for i := range hdr {
		b, err := p.readByte(deadline)
		if err != nil {
			return 0, 0, p.cut("in a frame's length", err, true)
		}
		hdr[i] = b
	}
	return hdr[0], hdr[1], nil
}

// body reads n bytes of TFI and data and the data checksum.
func (p *port) body(deadline time.Time, n byte) (kind, []byte, error) {
	data := make([]byte, n)
	sum := byte(0)
	for i := range data {
		b, err := p.readByte(deadline)
		if err != nil {
			return 0, nil, p.cut(fmt.Sprintf("after %d of %d bytes (a short frame, or a length that lies)", i, n), err, true)
		}
		data[i] = b
		sum += b
	}
	dcs, err := p.readByte(deadline)
	if err != nil {
		return 0, nil, p.cut("before the data checksum", err, true)
	}
	if sum+dcs != 0 {
		clear(data)
		return 0, nil, fmt.Errorf("%w: data checksum of a %d-byte frame", ErrChecksum, n)
	}
	return kindData, data, nil
}

// errTimeout is a read that hit its deadline: the board stopped answering
// (or never did).
var errTimeout = errors.New("no answer")

// cut names a read that failed; a frame cut off midway is a malformed
// frame (worth a retry), silence before one is a timeout.
func (p *port) cut(where string, err error, inFrame bool) error {
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && inFrame:
		return fmt.Errorf("%w: the frame stopped %s", ErrFrame, where)
	case errors.Is(err, os.ErrDeadlineExceeded):
		return fmt.Errorf("%w %s", errTimeout, where)
	}
	return fmt.Errorf("pn532: reading %s %s: %w", p.path, where, err)
}
