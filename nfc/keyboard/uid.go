package keyboard

import (
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/agentcall/acbridge/nfc"
)

// Longest line kept: a 10-byte UID in hex is 20 characters; anything
// longer is not a UID and is dropped whole.
const maxLine = 32

// keyChars are the keys a reader types: digits (top row and keypad) and
// the hex letters. Other keys make the line unreadable.
var keyChars = map[uint16]byte{
	11: '0', 2: '1', 3: '2', 4: '3', 5: '4', 6: '5', 7: '6', 8: '7', 9: '8', 10: '9',
	82: '0', 79: '1', 80: '2', 81: '3', 75: '4', 76: '5', 77: '6', 71: '7', 72: '8', 73: '9',
	30: 'a', 48: 'b', 46: 'c', 32: 'd', 18: 'e', 33: 'f',
}

// Enter ends a line: KEY_ENTER and KEY_KPENTER.
func isEnter(code uint16) bool { return code == 28 || code == 96 }

// parseUID maps a typed line to UID bytes. The rule, and why:
//   - exactly 10 decimal digits: the EM4100/Wiegand-style output that most
//     of these readers (125 kHz and 13.56 MHz alike) type by default, a
//     32-bit number: 4 bytes, big-endian, so that a reader typing the
//     first UID byte as the most significant one gives the same bytes as
//     PC/SC GET DATA. Readers set to reversed byte order give other bytes,
//     and so other (but stable) aliases.
//   - 8, 14 or 20 hex digits: a 4-, 7- or 10-byte UID typed byte by byte,
//     first byte first, as PC/SC reports it.
//
// A line of 10 digits is always read as decimal, never as 5 hex bytes (no
// ISO 14443 UID has 5 bytes). Errors carry the length, never the digits.
func parseUID(line []byte) ([]byte, error) {
	if len(line) == 10 && allDecimal(line) {
		v, err := strconv.ParseUint(string(line), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%w: a 10-digit number above 4294967295 is no 4-byte UID", nfc.ErrBadTag)
		}
		return []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}, nil
	}
	switch len(line) {
	case 8, 14, 20:
		uid := make([]byte, len(line)/2)
		if _, err := hex.Decode(uid, line); err == nil {
			return uid, nil
		}
	}
	return nil, fmt.Errorf("%w: the reader typed %d characters; want 10 decimal digits or 8, 14 or 20 hex digits", nfc.ErrBadTag, len(line))
}

func allDecimal(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
