package vmtest

import (
	"log/slog"
	"net"
	"net/http"
	"testing"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/bridge/bridgetest"
)

// hostAgent is the reference agent on the host's loopback, which the
// guest reaches through QEMU's guestfwd.
type hostAgent struct {
	addr string
	log  *bridgetest.Transcript
}

func startHostAgent(t *testing.T) *hostAgent {
	t.Helper()
	// The card's URLs follow the Host the guest used: its loopback relay,
	// which the daemon's network policy allows.
	return serveAgent(t, agent.Options{Physical: true})
}

// serveAgent serves a reference agent with o on the host's loopback until
// the test ends, its log (debug level) in the transcript.
func serveAgent(t *testing.T, o agent.Options) *hostAgent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &hostAgent{addr: ln.Addr().String(), log: &bridgetest.Transcript{}}
	o.Logger = slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a, err := agent.New(&o)
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: a}
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Close()
		a.Close()
	})
	return h
}
