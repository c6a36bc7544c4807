package ndef

import (
	"errors"
	"fmt"
)

// ErrRefused is what a driver's read or transmit function wraps when the tag
// answered but refused the command (a NAK, a status word other than 9000),
// as opposed to the tag leaving the field, which is any other error.
var ErrRefused = errors.New("ndef: the tag refused the command")

// ReadPages reads 16 bytes, four 4-byte pages, starting at page (the Type 2
// READ command 0x30; pseudo-APDU FF B0 00 page 10 on a PC/SC reader).
type ReadPages func(page byte) ([]byte, error)

// Type 2 constants (Type 2 Tag 1.0, 6.1 and 2.1).
const (
	ccPage      = 3
	dataStart   = 16 // byte offset of page 4, the start of the data area
	pageSize    = 4
	readSize    = 16
	ccMagic     = 0xE1
	tlvNULL     = 0x00
	tlvNDEF     = 0x03
	tlvTerm     = 0xFE
	maxPage     = 0xFF
	ccVersionHi = 0x10 // major version 1
)

// ReadType2 reads the NDEF message from a Type 2 tag's memory: the
// capability container, then the TLVs until the NDEF Message TLV, reading
// only the pages it needs. A tag that refuses the first read, has no
// capability container, or holds an empty NDEF TLV or none, wraps ErrNoNDEF;
// a capability container that denies reading or claims memory the tag
// refuses to read, and a TLV running past the data area, wrap ErrMalformed.
// Other errors are read's own (the tag left the field).
//
// Lock and Memory Control TLVs are skipped but the reserved areas they
// describe are not: NTAG21x and MIFARE Ultralight keep their lock bytes
// outside the data area the capability container declares.
func ReadType2(read ReadPages) ([]byte, error) {
	m := &t2mem{read: read}
	cc, err := m.bytes(ccPage*pageSize, pageSize)
	if errors.Is(err, ErrRefused) {
		return nil, fmt.Errorf("%w (the tag refused a Type 2 read: not an NFC Forum Type 2 tag)", ErrNoNDEF)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case cc[0] != ccMagic:
		return nil, fmt.Errorf("%w (no Type 2 capability container)", ErrNoNDEF)
	case cc[1]&0xF0 != ccVersionHi:
		return nil, malformed("capability container version %d.%d; only 1.x is defined", cc[1]>>4, cc[1]&0x0F)
	case cc[3]&0xF0 != 0:
		return nil, malformed("the capability container denies reading (access byte %02X)", cc[3])
	case cc[2] == 0:
		return nil, malformed("the capability container declares no data area")
	}
	m.end = dataStart + int(cc[2])*8
	off := dataStart
	for off < m.end {
		t, err := m.bytes(off, 1)
		if err != nil {
			return nil, err
		}
		switch t[0] {
		case tlvNULL:
			off++
			continue
		case tlvTerm:
			return nil, fmt.Errorf("%w (a Terminator TLV before any NDEF Message TLV)", ErrNoNDEF)
		}
		l, hdr, err := m.tlvLen(off + 1)
		if err != nil {
			return nil, err
		}
		val := off + 1 + hdr
		if val+l > m.end {
			return nil, malformed("a TLV of type %02X at offset %d claims %d bytes; the data area ends %d bytes later", t[0], off, l, m.end-val)
		}
		if t[0] != tlvNDEF {
			off = val + l
			continue
		}
		if l == 0 {
			return nil, fmt.Errorf("%w (an empty NDEF Message TLV)", ErrNoNDEF)
		}
		if l > MaxMessageLen {
			return nil, malformed("an NDEF message of %d bytes, more than %d", l, MaxMessageLen)
		}
		msg, err := m.bytes(val, l)
		if err != nil {
			return nil, err
		}
		return append([]byte(nil), msg...), nil
	}
	return nil, fmt.Errorf("%w (no NDEF Message TLV in the data area)", ErrNoNDEF)
}

// t2mem reads a Type 2 tag's memory on demand, 16 bytes at a time.
type t2mem struct {
	read ReadPages
	buf  []byte // memory from byte 0 as far as read
	end  int    // end of the data area, once the CC is known
}

// bytes returns n bytes at offset off, reading the pages they lie in.
func (m *t2mem) bytes(off, n int) ([]byte, error) {
	for len(m.buf) < off+n {
		page := len(m.buf) / pageSize
		if len(m.buf) == 0 {
			page = ccPage
			m.buf = make([]byte, ccPage*pageSize) // pages 0-2 (UID, lock bytes) are never read
		}
		if page > maxPage {
			return nil, malformed("the data area runs past page %d", maxPage)
		}
		b, err := m.read(byte(page))
		if errors.Is(err, ErrRefused) && page != ccPage {
			return nil, malformed("the tag refused to read page %d, inside the data area its capability container declares", page)
		}
		if err != nil {
			return nil, err
		}
		if len(b) != readSize {
			clear(b)
			return nil, malformed("a read of page %d returned %d bytes, want %d", page, len(b), readSize)
		}
		m.buf = append(m.buf, b...)
		clear(b)
	}
	return m.buf[off : off+n], nil
}

// tlvLen reads a TLV length at off: one byte, or FF and two bytes.
func (m *t2mem) tlvLen(off int) (l, size int, err error) {
	if off >= m.end {
		return 0, 0, malformed("a TLV length at offset %d lies past the data area", off)
	}
	b, err := m.bytes(off, 1)
	if err != nil {
		return 0, 0, err
	}
	if b[0] != 0xFF {
		return int(b[0]), 1, nil
	}
	if off+3 > m.end {
		return 0, 0, malformed("a 3-byte TLV length at offset %d runs past the data area", off)
	}
	b, err = m.bytes(off+1, 2)
	if err != nil {
		return 0, 0, err
	}
	l = int(b[0])<<8 | int(b[1])
	if l == 0xFFFF {
		return 0, 0, malformed("TLV length FFFF is reserved")
	}
	return l, 3, nil
}
