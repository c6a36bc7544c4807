package ndef

import (
	"errors"
	"fmt"
)

// Transmit sends one ISO/IEC 7816-4 command APDU to an ISO-DEP tag and
// returns the response APDU, status word included.
type Transmit func(apdu []byte) ([]byte, error)

// The NDEF Tag Application's name and the capability container file
// (Type 4 Tag 2.0, 5.4 and 5.1).
var (
	ndefAID  = []byte{0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01}
	ccFileID = []byte{0xE1, 0x03}
)

const (
	ccLen       = 15   // CCLEN up to and including the NDEF File Control TLV
	tlvNDEFFile = 0x04 // NDEF File Control TLV
	maxShortLe  = 0xFF // acbridge sends short APDUs only
)

// ReadType4 reads the NDEF message of an ISO-DEP tag: SELECT the NDEF Tag
// Application, read the capability container file, SELECT the NDEF file it
// names, read NLEN and then the message in pieces the tag's MLe allows. A
// tag without the application wraps ErrNoNDEF; a capability container that
// denies reading, names impossible sizes, or an NLEN beyond the file's
// maximum wrap ErrMalformed. Other errors are transmit's own.
func ReadType4(transmit Transmit) ([]byte, error) {
	rsp, err := command(transmit, append(append([]byte{0x00, 0xA4, 0x04, 0x00, byte(len(ndefAID))}, ndefAID...), 0x00), -1)
	if errors.Is(err, ErrRefused) {
		return nil, fmt.Errorf("%w (no NDEF Tag Application)", ErrNoNDEF)
	}
	if err != nil {
		return nil, err
	}
	clear(rsp)
	if err := selectFile(transmit, ccFileID, "capability container"); err != nil {
		return nil, err
	}
	cc, err := readBinary(transmit, 0, ccLen)
	if err != nil {
		return nil, err
	}
	cclen := int(cc[0])<<8 | int(cc[1])
	mle := int(cc[3])<<8 | int(cc[4])
	fileID := []byte{cc[9], cc[10]}
	maxSize := int(cc[11])<<8 | int(cc[12])
	switch {
	case cclen < ccLen:
		return nil, malformed("capability container length %d, want at least %d", cclen, ccLen)
	case cc[2]>>4 != 2 && cc[2]>>4 != 3:
		return nil, malformed("mapping version %d.%d; 2.x and 3.x are defined", cc[2]>>4, cc[2]&0x0F)
	case mle < 0x0F:
		return nil, malformed("MLe %d, below the minimum 15", mle)
	case cc[7] != tlvNDEFFile || cc[8] != 6:
		return nil, malformed("no NDEF File Control TLV in the capability container")
	case maxSize < 3:
		return nil, malformed("NDEF file maximum size %d", maxSize)
	case cc[13] != 0x00:
		return nil, malformed("the NDEF file denies reading (read access %02X)", cc[13])
	}
	if err := selectFile(transmit, fileID, "NDEF file"); err != nil {
		return nil, err
	}
	nb, err := readBinary(transmit, 0, 2)
	if err != nil {
		return nil, err
	}
	nlen := int(nb[0])<<8 | int(nb[1])
	switch {
	case nlen == 0:
		return nil, fmt.Errorf("%w (an empty NDEF file)", ErrNoNDEF)
	case nlen > maxSize-2:
		return nil, malformed("NLEN %d exceeds the NDEF file's maximum %d", nlen, maxSize-2)
	case nlen > MaxMessageLen:
		return nil, malformed("an NDEF message of %d bytes, more than %d", nlen, MaxMessageLen)
	}
	step := min(mle, maxShortLe)
	msg := make([]byte, 0, nlen)
	for len(msg) < nlen {
		part, err := readBinary(transmit, 2+len(msg), min(step, nlen-len(msg)))
		if err != nil {
			clear(msg)
			return nil, err
		}
		msg = append(msg, part...)
	}
	return msg, nil
}

func selectFile(transmit Transmit, id []byte, what string) error {
	_, err := command(transmit, []byte{0x00, 0xA4, 0x00, 0x0C, 0x02, id[0], id[1]}, 0)
	if errors.Is(err, ErrRefused) {
		return malformed("the tag refused to select its %s", what)
	}
	return err
}

// readBinary reads exactly n bytes at off.
func readBinary(transmit Transmit, off, n int) ([]byte, error) {
	if off > 0x7FFF {
		return nil, malformed("offset %d beyond READ BINARY's reach", off)
	}
	data, err := command(transmit, []byte{0x00, 0xB0, byte(off >> 8), byte(off), byte(n)}, n)
	if errors.Is(err, ErrRefused) {
		return nil, malformed("the tag refused READ BINARY of %d bytes at offset %d", n, off)
	}
	return data, err
}

// command sends apdu and returns the response data without the status
// word; want is the exact data length expected (negative: any). A status
// word other than 9000 wraps ErrRefused.
func command(transmit Transmit, apdu []byte, want int) ([]byte, error) {
	rsp, err := transmit(apdu)
	if err != nil {
		return nil, err
	}
	if len(rsp) < 2 {
		return nil, malformed("a response without a status word")
	}
	n := len(rsp) - 2
	if sw := uint16(rsp[n])<<8 | uint16(rsp[n+1]); sw != 0x9000 {
		clear(rsp)
		return nil, fmt.Errorf("%w (status word %04X)", ErrRefused, sw)
	}
	if want >= 0 && n != want {
		clear(rsp)
		return nil, malformed("a response of %d bytes, want %d", n, want)
	}
	return rsp[:n], nil
}
