package pn532_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
	"github.com/agentcall/acbridge/nfc/poll"
)

var (
	canary4  = []byte{0x5C, 0xA7, 0x4E, 0x21}
	canary7  = []byte{0x04, 0xC4, 0x7A, 0x19, 0x5E, 0xB2, 0x81}
	canary10 = []byte{0x04, 0x9E, 0x11, 0x2C, 0x3D, 0x4E, 0x5F, 0x60, 0x71, 0x82}
)

func noCanary(t *testing.T, where, s string) {
	t.Helper()
	for _, uid := range [][]byte{canary4, canary7, canary10} {
		for _, f := range []string{hex.EncodeToString(uid), strings.ToUpper(hex.EncodeToString(uid)), fmt.Sprintf("% x", uid), fmt.Sprintf("% X", uid), fmt.Sprintf("%v", uid)} {
			if strings.Contains(s, f) {
				t.Errorf("%s contains the canary UID as %q", where, f)
			}
		}
	}
}

func open(t *testing.T, e *pn532test.Emulator) *pn532.Chip {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pn532.Open(ctx, &pn532.Options{Path: e.Path, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return c
}

// Open wakes the sleeping board (the emulator ignores every command until
// the 0x55 wake-up), sends SAMConfiguration first, bounds the passive
// activation retries (else a poll without a tag never returns) and leaves
// the field off.
func TestOpenWakesAndConfigures(t *testing.T) {
	e := pn532test.Start(t)
	c := open(t, e)
	cmds := e.Commands()
	if len(cmds) < 3 || cmds[0] != 0x14 || !bytes.Contains(cmds, []byte{0x32}) {
		t.Fatalf("commands % X", cmds)
	}
	if e.FieldOn() {
		t.Fatal("the field is on after Open")
	}
	fw, err := c.Firmware(ctx(t))
	if err != nil || fw.IC != 0x32 || fw.Ver != 1 || fw.Rev != 6 || !strings.Contains(fw.String(), "PN532 firmware 1.6") {
		t.Fatalf("firmware %v %v", fw, err)
	}
}

// Poll reads 4-, 7- and 10-byte UIDs, reports an empty field as ErrNoTag,
// and FieldOff switches the field off.
func TestPollUIDs(t *testing.T) {
	e := pn532test.Start(t)
	c := open(t, e)
	if _, err := c.Poll(ctx(t)); !errors.Is(err, poll.ErrNoTag) {
		t.Fatalf("empty field: %v", err)
	}
	if !e.FieldOn() {
		t.Fatal("polling did not switch the field on")
	}
	for _, uid := range [][]byte{canary4, canary7, canary10} {
		e.SetTag(uid)
		got, err := c.Poll(ctx(t))
		if err != nil || !bytes.Equal(got, uid) {
			t.Fatalf("%d-byte UID: got %d bytes, %v", len(uid), len(got), err)
		}
	}
	if err := c.FieldOff(ctx(t)); err != nil || e.FieldOn() {
		t.Fatalf("FieldOff: %v, field on %v", err, e.FieldOn())
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if _, err := c.Poll(ctx(t)); !errors.Is(err, poll.ErrChip) {
		t.Fatalf("Poll after Close: %v", err)
	}
}

// A garbled answer once is survived (the driver aborts with an ACK and
// asks again); garbled for good, it is a clear ErrChip naming the problem
// (never the UID); and the same open chip works again once the line is
// clean.
func TestFaultsResync(t *testing.T) {
	for _, c := range []struct {
		name  string
		fault pn532test.Fault
		text  string // in the error when the fault persists; "" never fails
	}{
		{"garbage", pn532test.Garbage, ""},
		{"data checksum", pn532test.BadDCS, "data checksum"},
		{"length checksum", pn532test.BadLCS, "length"},
		{"short frame", pn532test.ShortFrame, "a short frame, or a length that lies"},
		{"error frame", pn532test.ErrorFrame, "error frame"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := pn532test.Start(t)
			chip := open(t, e)
			e.SetTag(canary7)
			e.SetFault(c.fault, 1)
			if uid, err := chip.Poll(ctx(t)); err != nil || !bytes.Equal(uid, canary7) {
				t.Fatalf("one bad answer: %v", err)
			}
			e.SetFault(c.fault, -1)
			uid, err := chip.Poll(ctx(t))
			if c.text == "" {
				if err != nil || !bytes.Equal(uid, canary7) {
					t.Fatalf("under constant noise: %v", err)
				}
				return
			}
			if !errors.Is(err, poll.ErrChip) || !strings.Contains(err.Error(), c.text) || !strings.Contains(err.Error(), "garbled") {
				t.Fatalf("persistent fault: %v", err)
			}
			noCanary(t, "error", err.Error())
			e.SetFault(pn532test.None, 0)
			if uid, err := chip.Poll(ctx(t)); err != nil || !bytes.Equal(uid, canary7) {
				t.Fatalf("after the fault: %v", err)
			}
		})
	}
}

// A board that stops answering makes the driver time out with the usual
// causes named, within a bound; when it answers again the chip works.
func TestSilentBoardTimesOut(t *testing.T) {
	e := pn532test.Start(t)
	chip := open(t, e)
	e.SetFault(pn532test.Silent, -1)
	start := time.Now()
	_, err := chip.Poll(ctx(t))
	if !errors.Is(err, poll.ErrChip) || !strings.Contains(err.Error(), "did not answer") || !strings.Contains(err.Error(), "HSU") {
		t.Fatalf("silent board: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("the timeout took %v", d)
	}
	e.SetFault(pn532test.None, 0)
	e.SetTag(canary4)
	if uid, err := chip.Poll(ctx(t)); err != nil || !bytes.Equal(uid, canary4) {
		t.Fatalf("after the board came back: %v", err)
	}
}

// Ports that cannot work are refused with the fix.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ path, text string }{
		{"", "set nfc.device"},
		{filepath.Join(dir, "ttyAMA9"), "enable_uart=1"},
		{filepath.Join(dir, "file"), "is not a serial port"},
	} {
		if c.path == filepath.Join(dir, "file") {
			if err := os.WriteFile(c.path, nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		_, err := pn532.Open(ctx(t), &pn532.Options{Path: c.path})
		if err == nil || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%q: %v", c.path, err)
		}
	}
	// A board that never answers (asleep for good: the emulator answers
	// nothing while Silent) fails Open with ErrChip.
	e := pn532test.Start(t)
	e.SetFault(pn532test.Silent, -1)
	_, err := pn532.Open(ctx(t), &pn532.Options{Path: e.Path, Timeout: 200 * time.Millisecond})
	if !errors.Is(err, poll.ErrChip) {
		t.Fatalf("silent board: %v", err)
	}
}
