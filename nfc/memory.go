package nfc

import (
	"bytes"
	"fmt"

	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/ebfe/scard"
)

// storageRID is the PC/SC registered application provider in the ATR a
// part 3 reader builds for a storage card (part 3, 3.1.3.2.3): MIFARE
// Ultralight, NTAG and other Type 2 tags. An ISO-DEP tag's ATR carries its
// ATS historical bytes instead.
var storageRID = []byte{0xA0, 0x00, 0x00, 0x03, 0x06}

// tagMemory is the memory access of the connected card: Type 2 pages
// through the READ BINARY pseudo-APDU FF B0 00 page 10 (part 3,
// 3.2.2.1.8) for a storage card, else ISO 7816-4 APDUs passed through.
func tagMemory(card *scard.Card) TagMemory {
	st, err := card.Status()
	if err != nil {
		return TagMemory{}
	}
	if len(st.Atr) >= 12 && bytes.Equal(st.Atr[7:12], storageRID) {
		return TagMemory{ReadPages: func(page byte) ([]byte, error) {
			rsp, err := card.Transmit([]byte{0xFF, 0xB0, 0x00, page, 0x10})
			if err != nil {
				return nil, err
			}
			n := len(rsp) - 2
			if n < 0 || rsp[n] != 0x90 || rsp[n+1] != 0x00 {
				clear(rsp)
				return nil, fmt.Errorf("%w (the reader answered % X)", ndef.ErrRefused, rsp[max(n, 0):])
			}
			return rsp[:n], nil
		}}
	}
	return TagMemory{Transmit: card.Transmit}
}
