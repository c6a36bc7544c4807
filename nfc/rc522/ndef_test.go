package rc522_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"periph.io/x/conn/v3/spi"

	"github.com/agentcall/acbridge/internal/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// TestNDEFReferencesOnSim taps the NDEF cases on the register-level
// stand-in, through poll's reader as the daemon runs it: Type 2 pages by
// READ with CRC_A; an ISO-DEP tag, which this driver cannot read, falls
// back to its alias. No UID and no reference reach the log.
func TestNDEFReferencesOnSim(t *testing.T) {
	const scope = "https://agent.example"
	uid4 := []byte{0xC4, 0x4A, 0xA2, 0x1E}
	uid7 := []byte{0x04, 0xCA, 0x4A, 0x21, 0xE5, 0x0D, 0x80}
	cases := ndeftest.Cases(uid4, uid7, false)
	t4 := ndeftest.Cases(uid4, uid7, true)
	t4c := t4[len(t4)-1]
	t4c.Name, t4c.Want = "Type 4 falls back", ""
	for _, c := range append(cases, t4c) {
		t.Run(c.Name, func(t *testing.T) {
			sim := &rc522test.Sim{}
			sim.PlaceTag(c.UID, c.Mem)
			ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
			if err != nil {
				t.Fatal(err)
			}
			logs := &syncbuf.Buffer{}
			log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			r, err := poll.New(&poll.Options{
				Open:    rc522.OpenFunc(&rc522.Options{OpenPort: func() (spi.PortCloser, error) { return sim, nil }, Logger: log}),
				Aliaser: &nfc.References{Aliaser: ks, Policy: c.Policy, Logger: log}, Scope: scope, Logger: log,
			})
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- r.Run(context.Background()) }()
			defer func() {
				r.Close()
				if err := <-done; !errors.Is(err, nfc.ErrClosed) {
					t.Errorf("Run: %v", err)
				}
				noUIDIn(t, "the log", logs.String(), c.UID)
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			s, err := r.Scan(ctx, 10*time.Second)
			if err != nil {
				noUIDIn(t, "the error", err.Error(), c.UID)
			}
			c.Check(t, s, err, ks.Object(scope, c.UID), logs.String())
		})
	}
}
