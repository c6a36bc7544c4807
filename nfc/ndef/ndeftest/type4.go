package ndeftest

// Memory is what a stand-in tag holds besides its UID: at most one of a
// Type 2 memory image and a Type 4 NDEF application.
type Memory struct {
	Type2 *Type2
	Type4 *Type4
}

// Type4 is an ISO-DEP tag's NDEF Tag Application (Type 4 Tag 2.0) holding
// one NDEF file. Answer keeps the selection state, as a tag does within
// one activation; Reset starts over.
type Type4 struct {
	// Msg is the NDEF message; the file holds NLEN and Msg.
	Msg []byte
	// MaxSize is the NDEF file size the capability container declares
	// (0: len(Msg)+2); NLEN is len(Msg) unless NLEN is set.
	MaxSize int
	NLEN    int
	// MLe is the capability container's maximum READ BINARY (0: 59, a
	// common tag's).
	MLe int

	app      bool   // the NDEF application is selected
	selected []byte // the selected file's bytes
}

// Reset forgets the selection (a new activation).
func (t *Type4) Reset() { t.app, t.selected = false, nil }

// Answer returns the response APDU to cmd.
func (t *Type4) Answer(cmd []byte) []byte {
	if len(cmd) < 4 {
		return []byte{0x67, 0x00}
	}
	switch {
	case cmd[1] == 0xA4 && cmd[2] == 0x04:
		if len(cmd) >= 12 && string(cmd[5:12]) == "\xD2\x76\x00\x00\x85\x01\x01" {
			t.app, t.selected = true, nil
			return []byte{0x90, 0x00}
		}
		return []byte{0x6A, 0x82}
	case cmd[1] == 0xA4 && cmd[2] == 0x00 && t.app && len(cmd) >= 7:
		switch string(cmd[5:7]) {
		case "\xE1\x03":
			t.selected = t.cc()
		case "\xE1\x04":
			t.selected = t.file()
		default:
			return []byte{0x6A, 0x82}
		}
		return []byte{0x90, 0x00}
	case cmd[1] == 0xB0 && t.selected != nil && len(cmd) == 5:
		off, n := int(cmd[2])<<8|int(cmd[3]), int(cmd[4])
		if off+n > len(t.selected) {
			return []byte{0x6B, 0x00}
		}
		return append(append([]byte(nil), t.selected[off:off+n]...), 0x90, 0x00)
	}
	return []byte{0x6D, 0x00}
}

func (t *Type4) cc() []byte {
	size := t.MaxSize
	if size == 0 {
		size = len(t.Msg) + 2
	}
	mle := t.MLe
	if mle == 0 {
		mle = 59
	}
	return []byte{0x00, 0x0F, 0x20, byte(mle >> 8), byte(mle), 0x00, 0x34,
		0x04, 0x06, 0xE1, 0x04, byte(size >> 8), byte(size), 0x00, 0xFF}
}

func (t *Type4) file() []byte {
	n := len(t.Msg)
	if t.NLEN != 0 {
		n = t.NLEN
	}
	f := append([]byte{byte(n >> 8), byte(n)}, t.Msg...)
	if size := t.MaxSize; size > len(f) {
		f = append(f, make([]byte, size-len(f))...)
	}
	return f
}
