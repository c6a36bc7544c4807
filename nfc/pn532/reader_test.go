package pn532_test

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/pn532"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
	"github.com/agentcall/acbridge/nfc/poll"
)

// waitFor waits for cond, asked again after each command the board handles
// (every change the tests wait for follows one).
func waitFor(t *testing.T, e *pn532test.Emulator, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if e.Wait(ctx, cond) != nil {
		t.Fatalf("timed out waiting for %s", what)
	}
}

// The whole route on the emulated board: the alias of a tapped tag, the
// field off after the window, a board that stops answering reported as no
// reader (with the driver's reason) and reconnected when it answers again,
// and no UID in any log line or status.
func TestPollReaderOnEmulator(t *testing.T) {
	e := pn532test.Start(t)
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var mu sync.Mutex
	var states []nfc.Status
	r, err := poll.New(&poll.Options{
		Open:    pn532.Opener(&pn532.Options{Path: e.Path, Timeout: 200 * time.Millisecond, Logger: log}),
		Name:    "PN532 on " + e.Path,
		Aliaser: ks, Scope: "https://agent.example", Logger: log,
		IdleCheck: 50 * time.Millisecond, MaxBackoff: 200 * time.Millisecond,
		OnState: func(s nfc.Status) { mu.Lock(); states = append(states, s); mu.Unlock() },
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
		mu.Lock()
		defer mu.Unlock()
		for _, s := range states {
			if s.Err != nil {
				noCanary(t, "status", s.Err.Error())
			}
		}
	}()
	if st := r.WaitReader(ctx(t)); st.State != nfc.StateReady {
		t.Fatalf("not ready: %+v", st)
	}
	e.SetTag(canary7)
	s, err := r.Scan(ctx(t), 10*time.Second)
	if err != nil || s.Object != ks.Object("https://agent.example", canary7) {
		t.Fatalf("scan %+v %v", s, err)
	}
	waitFor(t, e, "the field off", func() bool { return !e.FieldOn() })

	e.SetFault(pn532test.Silent, -1)
	waitFor(t, e, "no reader", func() bool { return r.Status().State == nfc.StateNoReader })
	if st := r.Status(); !errors.Is(st.Err, poll.ErrNoChip) || !strings.Contains(st.Err.Error(), "did not answer") {
		t.Fatalf("status %+v", st)
	}
	e.SetFault(pn532test.None, 0)
	waitFor(t, e, "the reader back", func() bool { return r.Status().State == nfc.StateReady })
	e.SetTag(canary4)
	if s, err := r.Scan(ctx(t), 10*time.Second); err != nil || s.Object != ks.Object("https://agent.example", canary4) {
		t.Fatalf("scan after reconnecting: %+v %v", s, err)
	}
}
