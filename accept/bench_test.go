package accept_test

import (
	"context"
	"testing"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

// BenchmarkEnvironment times the environment steps, which are acbridge
// doctor: the target is "a second or two" on a kiosk. On the simulated
// kiosk (real pcscd with the vpcd reader) they take a few milliseconds;
// a kiosk without any reader adds up to one second for the pn533 probe.
func BenchmarkEnvironment(b *testing.B) {
	vpcdtest.Require(b)
	sim, err := acceptsim.New(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer sim.Close()
	var o accept.Options
	sim.Apply(&o)
	o.Technician = nil
	o.Only = []string{accept.GroupEnvironment}
	b.ResetTimer()
	for b.Loop() {
		rep, err := accept.Run(context.Background(), &o)
		if err != nil || !rep.Accepted {
			b.Fatalf("environment not accepted: %v", err)
		}
	}
}
