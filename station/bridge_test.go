package station_test

import (
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

// The bridge's rules are config's, read in one place: config's defaults
// make a complete Policy, a configured value reaches it, and a Policy
// nobody resolved is refused instead of being filled in by the bridge.
func TestPolicyIsConfigs(t *testing.T) {
	p := station.Policy(config.Defaults())
	if err := p.Check(); err != nil {
		t.Fatalf("config's defaults: %v", err)
	}
	cfg, err := config.Parse([]byte(agent + "[nfc]\nwindow = \"42s\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if w := station.Policy(cfg).Window; w != 42*time.Second {
		t.Errorf("nfc.window 42s reached the bridge as %v", w)
	}
	var zero bridge.Policy
	if err := zero.Check(); !errors.Is(err, bridge.ErrUnresolvedPolicy) {
		t.Errorf("an unresolved Policy: %v", err)
	}
}
