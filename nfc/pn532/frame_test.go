package pn532

import (
	"bytes"
	"errors"
	"os"
	"testing"
	"time"
)

// The manual's own example: GetFirmwareVersion is 00 00 FF 02 FE D4 02 2A 00.
func TestEncodeManualExample(t *testing.T) {
	f, err := Encode(tfiHost, []byte{cmdGetFirmwareVersion})
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{0x00, 0x00, 0xFF, 0x02, 0xFE, 0xD4, 0x02, 0x2A, 0x00}; !bytes.Equal(f, want) {
		t.Fatalf("% X, want % X", f, want)
	}
	if _, err := Encode(tfiHost, make([]byte, MaxData)); !errors.Is(err, ErrFrame) {
		t.Fatalf("an oversized frame: %v", err)
	}
}

// pipePort is a port over a pipe the test writes, for frames no emulator
// would send.
func pipePort(t *testing.T, in []byte) *port {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if _, err := w.Write(in); err != nil {
		t.Fatal(err)
	}
	return &port{f: r, path: "pipe"}
}

// Every malformed input ends in a clear, bounded error, never a hang.
func TestReadFrameBadInput(t *testing.T) {
	good, _ := Encode(tfiChip, []byte{0x03, 0x32, 0x01, 0x06, 0x07})
	lying := append([]byte{0x00, 0x00, 0xFF, 0xC8, 0x38, 0xD5, 0x4B}, make([]byte, 10)...) // LEN 200, 12 bytes
	for _, c := range []struct {
		name string
		in   []byte
		want error
		text string
	}{
		{"ack", ackFrame, nil, ""},
		{"garbage then a frame", append(bytes.Repeat([]byte{0x13, 0x00, 0x37}, 20), good...), nil, ""},
		{"endless garbage", bytes.Repeat([]byte{0xAB}, 4*maxGarbage), ErrFrame, "no start code"},
		{"silence", nil, errTimeout, "no answer"},
		{"a LEN that lies", lying, ErrFrame, "after 12 of 200 bytes"},
		{"length checksum", []byte{0x00, 0x00, 0xFF, 0x05, 0xFA ^ 0x10, 0xD5}, ErrChecksum, "length checksum"},
		{"data checksum", append(good[:len(good)-2:len(good)-2], good[len(good)-2]^1, 0), ErrChecksum, "data checksum"},
		{"extended frame", []byte{0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x00}, ErrFrame, "extended"},
		{"empty frame", []byte{0x00, 0x00, 0xFF, 0x00, 0x00}, ErrFrame, "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pipePort(t, c.in)
			start := time.Now()
			_, _, err := p.readFrame(time.Now().Add(200 * time.Millisecond))
			if !errors.Is(err, c.want) || (c.want != nil && !bytes.Contains([]byte(err.Error()), []byte(c.text))) {
				t.Fatalf("err %v, want %v (%q)", err, c.want, c.text)
			}
			if time.Since(start) > 10*time.Second {
				t.Fatal("the read was not bounded")
			}
		})
	}
}

// InListPassiveTarget answers that do not add up are errors, not UIDs.
func TestParseTarget(t *testing.T) {
	uid, err := parseTarget([]byte{0x01, 0x01, 0x00, 0x44, 0x00, 0x07, 1, 2, 3, 4, 5, 6, 7, 0x05, 0x75})
	if err != nil || !bytes.Equal(uid, []byte{1, 2, 3, 4, 5, 6, 7}) {
		t.Fatalf("uid % x, err %v", uid, err)
	}
	if uid, err := parseTarget([]byte{0x00}); uid != nil || err != nil {
		t.Fatalf("no target: % x %v", uid, err)
	}
	for _, a := range [][]byte{{}, {0x02}, {0x01, 0x01, 0x00}, {0x01, 0x01, 0x00, 0x04, 0x08, 0x07, 1, 2, 3}, {0x01, 0x01, 0x00, 0x04, 0x08, 0x00}, {0x01, 0x01, 0x00, 0x44, 0x04, 0x07, 1, 2, 3, 4, 5, 6, 7}} {
		if _, err := parseTarget(a); !errors.Is(err, ErrFrame) {
			t.Errorf("% x: %v", a, err)
		}
	}
}
