// Package ndeftest builds NDEF messages and tag memories for the stand-in
// readers (the vpcd virtual card, the PN532 emulator, the RC522 simulator)
// and tests: NFC Forum Type 2 memory images of NTAG21x tags and a Type 4
// NDEF Tag Application, well-formed and broken.
package ndeftest

import (
	"strings"
)

// HAPrefix is Home Assistant's tag address; its stickers carry one URI
// record HAPrefix + the tag's id.
const HAPrefix = "https://www.home-assistant.io/tag/"

// URIMessage is an NDEF message of one short URI record, abbreviated with
// the URI RTD codes for https://www. and https:// as phones write it.
func URIMessage(uri string) []byte {
	code := byte(0)
	switch {
	case strings.HasPrefix(uri, "https://www."):
		code, uri = 0x02, uri[len("https://www."):]
	case strings.HasPrefix(uri, "https://"):
		code, uri = 0x04, uri[len("https://"):]
	}
	return Record(0xD1, "U", append([]byte{code}, uri...))
}

// TextMessage is an NDEF message of one Text record in English.
func TextMessage(text string) []byte {
	return Record(0xD1, "T", append([]byte{0x02, 'e', 'n'}, text...))
}

// Record is one record with header byte hdr (MB, ME, CF, TNF as given),
// type typ and payload p: a short record (SR) up to 255 bytes of payload.
func Record(hdr byte, typ string, p []byte) []byte {
	if len(p) > 0xFF {
		n := len(p)
		return append(append([]byte{hdr &^ 0x10, byte(len(typ)), byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, typ...), p...)
	}
	return append(append([]byte{hdr | 0x10, byte(len(typ)), byte(len(p))}, typ...), p...)
}

// Sizes of the NTAG21x family: total pages and the data area their
// capability container declares (NTAG213/215/216 datasheet, 8.5).
type Model struct {
	Pages  int
	CCSize byte // data area / 8
}

var (
	NTAG213 = Model{Pages: 45, CCSize: 0x12}
	NTAG215 = Model{Pages: 135, CCSize: 0x3E}
	NTAG216 = Model{Pages: 231, CCSize: 0x6D}
)

// Type2 is a Type 2 tag's memory, page 0 first.
type Type2 struct {
	Mem []byte
}

// Image returns a memory of model m with uid (4 or 7 bytes) in pages 0-2,
// the capability container E1 10 size 00 in page 3, and tlvs from page 4.
func Image(m Model, uid []byte, tlvs []byte) *Type2 {
	mem := make([]byte, m.Pages*4)
	copy(mem, uid)
	copy(mem[12:], []byte{0xE1, 0x10, m.CCSize, 0x00})
	copy(mem[16:], tlvs)
	return &Type2{Mem: mem}
}

// NDEFTLV wraps msg in an NDEF Message TLV followed by a Terminator TLV.
func NDEFTLV(msg []byte) []byte {
	var t []byte
	if len(msg) < 0xFF {
		t = []byte{0x03, byte(len(msg))}
	} else {
		t = []byte{0x03, 0xFF, byte(len(msg) >> 8), byte(len(msg))}
	}
	return append(append(t, msg...), 0xFE)
}

// Tag is an NTAG215 with a 7-byte UID carrying the message of one URI
// record uri, as phones and Home Assistant write it.
func Tag(uid []byte, uri string) *Type2 {
	return Image(NTAG215, uid, NDEFTLV(URIMessage(uri)))
}

// OverLong is an NTAG213 whose NDEF Message TLV claims 256 bytes: more than
// its 144-byte data area.
func OverLong(uid []byte) *Type2 {
	return Image(NTAG213, uid, append([]byte{0x03, 0xFF, 0x01, 0x00}, URIMessage(HAPrefix+"x")...))
}

// BrokenTLV is an NTAG213 whose NDEF Message TLV has the reserved length
// FF FF FF.
func BrokenTLV(uid []byte) *Type2 {
	return Image(NTAG213, uid, []byte{0x03, 0xFF, 0xFF, 0xFF, 0xD1})
}

// LyingCC is an NTAG213 whose capability container claims a 2032-byte data
// area and whose NDEF TLV claims 1000 bytes of it: the tag refuses the
// reads past its 45 pages.
func LyingCC(uid []byte) *Type2 {
	t := Image(NTAG213, uid, append([]byte{0x03, 0xFF, 0x03, 0xE8}, URIMessage(HAPrefix+"x")...))
	t.Mem[14] = 0xFE
	return t
}

// Read answers READ (0x30) of page: 16 bytes, rolling over to page 0 past
// the last page, as NTAG21x do; ok is false (a NAK) for a page past the end.
func (t *Type2) Read(page byte) (b []byte, ok bool) {
	start := int(page) * 4
	if start >= len(t.Mem) {
		return nil, false
	}
	b = make([]byte, 16)
	for i := range b {
		b[i] = t.Mem[(start+i)%len(t.Mem)]
	}
	return b, true
}
