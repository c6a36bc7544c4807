package rc522_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"periph.io/x/conn/v3/spi/spitest"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// openScript opens a chip on s's playback with a debug logger into log.
func openScript(t *testing.T, s rc522test.Script, log *syncbuf.Buffer) (*rc522.Chip, *spitest.Playback) {
	t.Helper()
	p := s.Playback()
	c, err := rc522.Open(context.Background(), &rc522.Options{
		OpenPort: rc522test.Port(p),
		Logger:   slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return c, p
}

// closeChecked closes c and fails when the playback was not consumed to
// its end (conntest's Close says which exchange was missing).
func closeChecked(t *testing.T, c *rc522.Chip, p *spitest.Playback) {
	t.Helper()
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v (%d of %d exchanges done)", err, p.Count, len(p.Ops))
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func noUIDIn(t *testing.T, what, s string, uids ...[]byte) {
	t.Helper()
	for _, u := range uids {
		for _, form := range []string{hex.EncodeToString(u), strings.ToUpper(hex.EncodeToString(u)), string(u)} {
			if strings.Contains(s, form) {
				t.Errorf("%s holds the UID: %q", what, s)
			}
		}
	}
}

// A MIFARE Classic with a 4-byte UID, left on the reader: every poll
// reads it (WUPA wakes it from HALT), the field is switched on once and
// off by FieldOff, and the UID never reaches the log.
func TestPoll4ByteUID(t *testing.T) {
	var s rc522test.Script
	s.Open(0x92)
	s.FieldOn()
	for range 2 {
		s.WUPA(0x04, 0x00)
		s.Level(uid4CL1, uid4Select, sak08)
		s.HLTA()
	}
	s.Write(rc522test.RegTxControl, 0x80)
	var log syncbuf.Buffer
	c, p := openScript(t, s, &log)
	if c.Version() != 0x92 {
		t.Errorf("Version 0x%02X, want 0x92", c.Version())
	}
	for i := range 2 {
		uid, err := c.Poll(context.Background())
		if err != nil || !bytes.Equal(uid, uid4) {
			t.Fatalf("poll %d: %x, %v; want the 4-byte UID", i, uid, err)
		}
	}
	if err := c.FieldOff(context.Background()); err != nil {
		t.Fatal(err)
	}
	closeChecked(t, c, p)
	noUIDIn(t, "the log", log.String(), uid4)
	if !strings.Contains(log.String(), "0x92") {
		t.Errorf("the log does not name the chip version: %q", log.String())
	}
}

// Double- and triple-size UIDs: the cascade tag 0x88 and SAK 0x04 at
// each level but the last, SEL 0x93, 0x95, 0x97. Close switches the field
// off.
func TestPollCascadeLevels(t *testing.T) {
	for _, c := range []struct {
		uid    []byte
		atqa   byte
		levels [][3][]byte // UID CLn + BCC, SELECT, SAK
	}{
		{uid7, 0x44, [][3][]byte{{uid7CL1, uid7Select1, sak04}, {uid7CL2, uid7Select2, sak00}}},
		{uid10, 0x84, [][3][]byte{{uid10CL1, uid10Select1, sak04}, {uid10CL2, uid10Select2, sak04}, {uid10CL3, uid10Select3, sak20}}},
	} {
		var s rc522test.Script
		s.Open(0x91)
		s.FieldOn()
		s.WUPA(c.atqa, 0x00)
		for _, l := range c.levels {
			s.Level(l[0], l[1], l[2])
		}
		s.HLTA()
		s.Write(rc522test.RegTxControl, 0x80) // Close
		chip, p := openScript(t, s, &syncbuf.Buffer{})
		uid, err := chip.Poll(context.Background())
		if err != nil || !bytes.Equal(uid, c.uid) {
			t.Fatalf("Poll: %x, %v; want the %d-byte UID", uid, err, len(c.uid))
		}
		closeChecked(t, chip, p)
	}
}

// No tag: the chip's timer ends WUPA (TimerIRq) and Poll says ErrNoTag,
// not a chip failure; the next poll tries again with the field still on.
func TestPollNoTag(t *testing.T) {
	var s rc522test.Script
	s.Open(0x92)
	s.FieldOn()
	s.Send([]byte{0x52}, 7)
	s.Silence()
	s.Send([]byte{0x52}, 7)
	s.Silence()
	s.Write(rc522test.RegTxControl, 0x80)
	c, p := openScript(t, s, &syncbuf.Buffer{})
	for i := range 2 {
		uid, err := c.Poll(context.Background())
		if !errors.Is(err, poll.ErrNoTag) || errors.Is(err, poll.ErrChip) || uid != nil {
			t.Fatalf("poll %d: %x, %v; want ErrNoTag", i, uid, err)
		}
	}
	closeChecked(t, c, p)
}

// Tags that answer with invalid frames — two colliding, a wrong BCC, a
// SAK with a bad CRC_A, a cascade tag the SAK denies — are no tag for
// this poll (ErrTagFrame wraps ErrNoTag), not a chip to reopen, and the
// error holds no UID byte.
func TestPollBadTagFrames(t *testing.T) {
	for name, tail := range map[string]func(s *rc522test.Script){
		"collision": func(s *rc522test.Script) {
			s.Send([]byte{0x93, 0x20}, 0)
			s.Read(rc522test.RegCommIrq, 0x66)
			s.Read(rc522test.RegError, 0x08)
		},
		"bcc": func(s *rc522test.Script) {
			s.Send([]byte{0x93, 0x20}, 0)
			s.Answer(0xDE, 0xAD, 0xBE, 0xEF, 0x23)
		},
		"sak crc": func(s *rc522test.Script) {
			s.Send([]byte{0x93, 0x20}, 0)
			s.Answer(uid4CL1...)
			s.Send(uid4Select, 0)
			s.Answer(0x08, 0xB6, 0xDE)
		},
		"cascade tag, complete sak": func(s *rc522test.Script) {
			s.Send([]byte{0x93, 0x20}, 0)
			s.Answer(uid7CL1...)
			s.Send(uid7Select1, 0)
			s.Answer(sak08...)
		},
		"parity": func(s *rc522test.Script) {
			s.Send([]byte{0x93, 0x20}, 0)
			s.Read(rc522test.RegCommIrq, 0x66)
			s.Read(rc522test.RegError, 0x02)
		},
	} {
		t.Run(name, func(t *testing.T) {
			var s rc522test.Script
			s.Open(0x92)
			s.FieldOn()
			s.WUPA(0x04, 0x00)
			tail(&s)
			s.Write(rc522test.RegTxControl, 0x80)
			c, p := openScript(t, s, &syncbuf.Buffer{})
			uid, err := c.Poll(context.Background())
			if !errors.Is(err, rc522.ErrTagFrame) || !errors.Is(err, poll.ErrNoTag) || errors.Is(err, poll.ErrChip) || uid != nil {
				t.Fatalf("Poll: %x, %v; want ErrTagFrame", uid, err)
			}
			noUIDIn(t, "the error", err.Error(), uid4, uid7[:3])
			closeChecked(t, c, p)
		})
	}
}

// A chip that answers garbage on the bus: a FIFO level past 64 and a
// FIFO overflow are chip failures (ErrChip), which make poll reopen it.
func TestPollGarbledChip(t *testing.T) {
	for name, c := range map[string]struct {
		tail func(s *rc522test.Script)
		want string
	}{
		"fifo level": {func(s *rc522test.Script) {
			s.Read(rc522test.RegCommIrq, 0x64)
			s.Read(rc522test.RegError, 0x00)
			s.Read(rc522test.RegFIFOLevel, 0xFF)
		}, "check the wiring"},
		"overflow": {func(s *rc522test.Script) {
			s.Read(rc522test.RegCommIrq, 0x66)
			s.Read(rc522test.RegError, 0x10)
		}, "FIFO overflow"},
	} {
		t.Run(name, func(t *testing.T) {
			var s rc522test.Script
			s.Open(0x92)
			s.FieldOn()
			s.Send([]byte{0x52}, 7)
			c.tail(&s)
			s.Write(rc522test.RegTxControl, 0x80)
			chip, p := openScript(t, s, &syncbuf.Buffer{})
			_, err := chip.Poll(context.Background())
			if !errors.Is(err, poll.ErrChip) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Poll: %v; want ErrChip saying %q", err, c.want)
			}
			closeChecked(t, chip, p)
		})
	}
}

// VersionReg that is no MFRC522's: Open fails with ErrChip and a message
// that says what to check, after reading that one register.
func TestOpenWrongVersion(t *testing.T) {
	for v, want := range map[byte]string{
		0x00: "check wiring: VersionReg read 0x00",
		0xFF: "check wiring: VersionReg read 0xFF",
		0x32: "VersionReg read 0x32, which is no MFRC522's",
	} {
		var s rc522test.Script
		s.Read(rc522test.RegVersion, v)
		p := s.Playback()
		c, err := rc522.Open(context.Background(), &rc522.Options{OpenPort: rc522test.Port(p)})
		wiring := v == 0x00 || v == 0xFF
		if c != nil || !errors.Is(err, poll.ErrChip) || errors.Is(err, rc522.ErrWiring) != wiring || !strings.Contains(err.Error(), want) {
			t.Errorf("VersionReg 0x%02X: %v; want ErrChip with %q", v, err, want)
		}
		if p.Count != 1 {
			t.Errorf("VersionReg 0x%02X: %d exchanges, want only the version read", v, p.Count)
		}
	}
}

// Ping reads VersionReg and nothing else: the same value passes, 0xFF
// (the board lost its supply or MISO) is a wiring failure.
func TestPing(t *testing.T) {
	var s rc522test.Script
	s.Open(0x92)
	s.Read(rc522test.RegVersion, 0x92)
	s.Read(rc522test.RegVersion, 0xFF)
	c, p := openScript(t, s, &syncbuf.Buffer{})
	if err := c.Ping(context.Background()); err != nil {
		t.Errorf("first Ping: %v", err)
	}
	if err := c.Ping(context.Background()); !errors.Is(err, rc522.ErrWiring) || !strings.Contains(err.Error(), "VersionReg read 0xFF") {
		t.Errorf("second Ping: %v; want the wiring error", err)
	}
	closeChecked(t, c, p)
}
