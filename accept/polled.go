package accept

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/poll"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/station"
)

// polledOpener is station.Polled for the configuration, with the RC522
// of Options.RC522 when a test or simulation gives one.
func (g *rig) polledOpener() (poll.OpenFunc, string, bool) {
	open, name, ok := station.Polled(g.cfg.NFC, g.log)
	if ok && g.cfg.NFC.Driver == "rc522" && g.o.RC522 != nil {
		open = rc522.OpenFunc(g.o.RC522)
	}
	return open, name, ok
}

// openPolled runs the reader chip nfc.driver names (station.Polled) and
// waits until it answers, as the PC/SC reader is waited for.
func (g *rig) openPolled(ctx context.Context, open poll.OpenFunc, name string, start time.Time) (nfc.Reader, error) {
	ks, _, err := g.aliaser()
	if err != nil {
		return nil, err
	}
	pr, err := poll.New(&poll.Options{Open: open, Name: name, Aliaser: station.WithReferences(g.cfg.NFC, ks, g.log), Scope: g.scope(), Logger: g.log})
	if err != nil {
		return nil, err
	}
	g.polled = pr
	g.wg.Add(1)
	go func() { defer g.wg.Done(); pr.Run(g.ctx) }()
	if st := pr.WaitReader(ctx); st.State == nfc.StateNoReader {
		return nil, fmt.Errorf("the reader did not become ready: %w", errors.Join(st.Err, ctx.Err()))
	}
	g.readyIn = time.Since(start)
	g.ident.Reader = name
	return pr, nil
}
