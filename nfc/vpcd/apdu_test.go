package vpcd

import (
	"bytes"
	"testing"
)

func TestAnswer(t *testing.T) {
	uid := []byte{0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6}
	tests := []struct {
		name   string
		cmd    []byte
		refuse uint16
		want   []byte
	}{
		{"get data", []byte{0xFF, 0xCA, 0x00, 0x00, 0x00}, 0, append(append([]byte(nil), uid...), 0x90, 0x00)},
		{"get data without Le", []byte{0xFF, 0xCA, 0x00, 0x00}, 0, append(append([]byte(nil), uid...), 0x90, 0x00)},
		{"exact Le", []byte{0xFF, 0xCA, 0x00, 0x00, 0x07}, 0, append(append([]byte(nil), uid...), 0x90, 0x00)},
		{"short Le", []byte{0xFF, 0xCA, 0x00, 0x00, 0x04}, 0, []byte{0x6C, 0x07}},
		{"ATS", []byte{0xFF, 0xCA, 0x01, 0x00, 0x00}, 0, []byte{0x6A, 0x81}},
		{"refused 6A81", []byte{0xFF, 0xCA, 0x00, 0x00, 0x00}, 0x6A81, []byte{0x6A, 0x81}},
		{"refused 6D00", []byte{0xFF, 0xCA, 0x00, 0x00, 0x00}, 0x6D00, []byte{0x6D, 0x00}},
		{"other INS", []byte{0xFF, 0xB0, 0x00, 0x00, 0x10}, 0, []byte{0x6D, 0x00}},
		{"ISO CLA", []byte{0x00, 0xA4, 0x04, 0x00}, 0, []byte{0x6E, 0x00}},
		{"too short", []byte{0xFF, 0xCA}, 0, []byte{0x67, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := answer(tt.cmd, uid, tt.refuse); !bytes.Equal(got, tt.want) {
				t.Errorf("answer(% X) = % X, want % X", tt.cmd, got, tt.want)
			}
		})
	}
}

func TestATR(t *testing.T) {
	// The MIFARE Classic 1K ATR as PC/SC part 3 readers (ACR122U) report it.
	want := []byte{0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x6A}
	if got := atrFor([]byte{1, 2, 3, 4, 5, 6, 7}, Memory{}); !bytes.Equal(got, want) {
		t.Errorf("storage card ATR % X, want % X", got, want)
	}
	if got, want := atrFor([]byte{0x08, 1, 2, 3}, Memory{}), []byte{0x3B, 0x80, 0x80, 0x01, 0x01}; !bytes.Equal(got, want) {
		t.Errorf("random-UID ATR % X, want % X", got, want)
	}
}

func TestRandomUID(t *testing.T) {
	a, b := RandomUID(), RandomUID()
	if len(a) != 4 || a[0] != 0x08 || b[0] != 0x08 {
		t.Fatalf("RandomUID = % X, % X; want 4 bytes starting 08", a, b)
	}
	if bytes.Equal(a, b) {
		t.Errorf("two RandomUID calls returned the same UID % X", a)
	}
}
