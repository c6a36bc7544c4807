package ndeftest

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/testutil/syncbuf"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/poll"
)

// RunPolled taps c on a polled chip's stand-in, already holding the tag,
// through poll's reader as the daemon runs it, and checks the result
// (Check). Every log line and error goes to noUID, which fails t if it
// finds the tag's UID.
func (c *Case) RunPolled(t *testing.T, open poll.OpenFunc, noUID func(t *testing.T, where, s string)) {
	t.Helper()
	const scope = "https://agent.example"
	ks, err := keystore.Create(filepath.Join(t.TempDir(), "keystore.json"))
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncbuf.Buffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r, err := poll.New(&poll.Options{Open: open, Scope: scope, Logger: log,
		Aliaser: &nfc.References{Aliaser: ks, Policy: c.Policy, Logger: log}})
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
		noUID(t, "the log", logs.String())
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	s, err := r.Scan(ctx, 10*time.Second)
	if err != nil {
		noUID(t, "the error", err.Error())
	}
	c.Check(t, s, err, ks.Object(scope, c.UID), logs.String())
}
