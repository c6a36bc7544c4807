package rc522

import (
	"bytes"
	"testing"
)

// CRC_A against the examples of ISO/IEC 14443-3 annex B and the HLTA
// frame every reader sends.
func TestCRCA(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte{0x00, 0x00}, []byte{0x00, 0x00, 0xA0, 0x1E}},
		{[]byte{0x12, 0x34}, []byte{0x12, 0x34, 0x26, 0xCF}},
		{[]byte{0x50, 0x00}, []byte{0x50, 0x00, 0x57, 0xCD}},
	} {
		if got := appendCRCA(append([]byte(nil), c.in...)); !bytes.Equal(got, c.want) {
			t.Errorf("CRC_A(% X) = % X, want % X", c.in, got, c.want)
		}
		if !validCRCA(c.want) {
			t.Errorf("validCRCA(% X) = false", c.want)
		}
	}
	if validCRCA([]byte{0x08, 0xB6, 0xDE}) || validCRCA([]byte{0x08}) {
		t.Error("a wrong or short CRC_A passes")
	}
}
