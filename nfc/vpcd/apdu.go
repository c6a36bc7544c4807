package vpcd

// Status words (ISO/IEC 7816-4, PC/SC part 3 section 3.2.2.1.3).
const (
	swOK           = 0x9000
	swWrongLength  = 0x6700
	swWrongLe      = 0x6C00 // low byte: the exact length available
	swFuncNotSupp  = 0x6A81
	swINSNotSupp   = 0x6D00
	swCLANotSupp   = 0x6E00
	claPCSC        = 0xFF
	insGetData     = 0xCA
	getDataUID     = 0x00
	isoDEPUIDFirst = 0x08
)

// answer returns the response APDU to a command APDU. Only the PC/SC part 3
// GET DATA pseudo-APDU is implemented: it is all the reader code sends.
func answer(cmd, uid []byte, refuse uint16) []byte {
	if len(cmd) < 4 {
		return sw(swWrongLength)
	}
	if cmd[0] != claPCSC {
		return sw(swCLANotSupp)
	}
	if cmd[1] != insGetData {
		return sw(swINSNotSupp)
	}
	if refuse != 0 {
		return sw(refuse)
	}
	if cmd[2] != getDataUID || cmd[3] != 0 {
		return sw(swFuncNotSupp)
	}
	le := 0 // absent or 00: "all bytes"
	if len(cmd) == 5 {
		le = int(cmd[4])
	}
	if le != 0 && le < len(uid) {
		return sw(swWrongLe | uint16(len(uid)))
	}
	return append(append([]byte(nil), uid...), byte(swOK>>8), byte(swOK&0xFF))
}

func sw(w uint16) []byte { return []byte{byte(w >> 8), byte(w)} }

// atrFor returns the ATR a PC/SC part 3 reader builds for the tag (part 3,
// section 3.1.3.2.3): a storage-card ATR (RID A0 00 00 03 06, standard 03 =
// ISO 14443 A part 3, card name 00 01 = MIFARE Classic 1K), or for a random
// UID, as phones present, an ISO 14443-4 ATR without historical bytes.
func atrFor(uid []byte, mem Memory) []byte {
	if (len(uid) == 4 && uid[0] == isoDEPUIDFirst) || mem.Type4 != nil {
		return withTCK([]byte{0x3B, 0x80, 0x80, 0x01})
	}
	name := byte(0x01)
	if mem.Type2 != nil {
		name = 0x03 // MIFARE Ultralight
	}
	return withTCK([]byte{
		0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C,
		0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, name,
		0x00, 0x00, 0x00, 0x00,
	})
}

// withTCK appends the check byte: XOR of all bytes from T0 on (ISO/IEC
// 7816-3, 8.2.5), required because TD1 announces T=1.
func withTCK(atr []byte) []byte {
	var x byte
	for _, b := range atr[1:] {
		x ^= b
	}
	return append(atr, x)
}
