package pn532_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
	"github.com/agentcall/acbridge/nfc/poll"
)

// TestNDEFReferencesOnEmulator taps the NDEF cases on the emulated board:
// Type 2 pages through InDataExchange READ, the Type 4 application through
// InDataExchange APDUs; no UID and no reference in the log.
func TestNDEFReferencesOnEmulator(t *testing.T) {
	const scope = "https://agent.example"
	for _, c := range ndeftest.Cases(canary4, canary7, true) {
		t.Run(c.Name, func(t *testing.T) {
			e := pn532test.Start(t)
			ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
			if err != nil {
				t.Fatal(err)
			}
			logs := &syncbuf.Buffer{}
			log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
			r, err := poll.New(&poll.Options{
				Open:    pn532.Opener(&pn532.Options{Path: e.Path, Timeout: 500 * time.Millisecond, Logger: log}),
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
				noCanary(t, "log", logs.String())
			}()
			e.SetTagMemory(c.UID, c.Mem)
			s, err := r.Scan(ctx(t), 10*time.Second)
			if err != nil {
				noCanary(t, "error", err.Error())
			}
			c.Check(t, s, err, ks.Object(scope, c.UID), logs.String())
		})
	}
}
