package rc522_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"

	"periph.io/x/conn/v3/spi"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// Against the register-level stand-in: a tag placed, left on for many
// polls, powered off and on again by FieldOff, and taken away, for each
// UID size; the canary UIDs never reach the log.
func TestPollSimulatedTag(t *testing.T) {
	canaries := [][]byte{
		{0xC4, 0x4A, 0xA2, 0x1E},
		{0x04, 0xCA, 0x4A, 0x21, 0xE5, 0x0D, 0x80},
		{0x04, 0xCA, 0x4A, 0x21, 0xE5, 0x0D, 0x80, 0x11, 0x22, 0x33},
	}
	for _, uid := range canaries {
		sim := &rc522test.Sim{Version: 0x88}
		var log syncbuf.Buffer
		c, err := rc522.Open(context.Background(), &rc522.Options{
			OpenPort: func() (spi.PortCloser, error) { return sim, nil },
			Logger:   slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := c.Poll(ctx); !errors.Is(err, poll.ErrNoTag) {
			t.Fatalf("empty field: %v", err)
		}
		sim.Place(uid)
		for i := range 5 {
			got, err := c.Poll(ctx)
			if err != nil || !bytes.Equal(got, uid) {
				t.Fatalf("%d-byte UID, poll %d: %x, %v", len(uid), i, got, err)
			}
		}
		if err := c.FieldOff(ctx); err != nil || sim.FieldOn() {
			t.Fatalf("FieldOff: %v, field on %v", err, sim.FieldOn())
		}
		if got, err := c.Poll(ctx); err != nil || !bytes.Equal(got, uid) || !sim.FieldOn() {
			t.Fatalf("after FieldOff: %x, %v", got, err)
		}
		sim.Collide(true)
		if _, err := c.Poll(ctx); !errors.Is(err, rc522.ErrTagFrame) {
			t.Errorf("two tags: %v", err)
		}
		sim.Collide(false)
		sim.Place(nil)
		if _, err := c.Poll(ctx); !errors.Is(err, poll.ErrNoTag) {
			t.Fatalf("tag taken away: %v", err)
		}
		if err := c.Close(); err != nil || sim.FieldOn() {
			t.Fatalf("Close: %v, field on %v", err, sim.FieldOn())
		}
		noUIDIn(t, "the log", log.String(), uid)
	}
}
