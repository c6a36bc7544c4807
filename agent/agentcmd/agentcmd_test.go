package agentcmd

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Every flag mistake is a UsageError that says what to do, before anything
// listens.
func TestCheckRefusesWithTheFix(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{}, "--listen ADDR is required"},
		{Options{Listen: "127.0.0.1:0"}, "--tls-cert FILE --tls-key FILE"},
		{Options{Listen: "127.0.0.1:0", CertFile: "c", InsecureLocal: true}, "not both"},
		{Options{Listen: "127.0.0.1:0", CertFile: "c"}, "go together"},
		{Options{Listen: "0.0.0.0:0", InsecureLocal: true}, "loopback"},
		{Options{Listen: "127.0.0.1:0", InsecureLocal: true, Transport: "carrier-pigeon"}, "websocket or webrtc"},
		{Options{Listen: "127.0.0.1:0", InsecureLocal: true, PublicURL: "ftp://x"}, "--public-url"},
	} {
		err := Run(context.Background(), &c.o)
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a UsageError with %q", c.o, err, c.want)
		}
	}
}

// A valid local agent serves until its context ends, and says where.
func TestRunServesUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var log lineWriter
	log.seen = make(chan string, 16)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, &Options{Listen: "127.0.0.1:0", InsecureLocal: true, Stderr: &log})
	}()
	for line := range log.seen {
		if strings.HasPrefix(line, "listening on http://127.0.0.1:") {
			break
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run after cancel = %v, want nil", err)
	}
}

// lineWriter hands each write to the test; writes beyond its buffer are
// dropped rather than blocking the agent.
type lineWriter struct{ seen chan string }

func (w *lineWriter) Write(p []byte) (int, error) {
	select {
	case w.seen <- string(p):
	default:
	}
	return len(p), nil
}
