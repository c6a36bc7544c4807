package wsframe_test

import (
	"context"
	"testing"
	"time"

	"github.com/agentcall/acbridge/internal/wsframe"
)

// The budget answers a burst, refills at the rate, and a ping that finds
// it empty floods the connection for good.
func TestPingBudget(t *testing.T) {
	now := time.Unix(1000, 0)
	g := wsframe.NewGuard(&wsframe.GuardOptions{PingBurst: 3, PingRate: 1, Now: func() time.Time { return now }})
	ping := func() bool { return g.OnPing(context.Background(), []byte("p")) }
	for i := 0; i < 3; i++ {
		if !ping() {
			t.Fatalf("ping %d of the burst refused", i+1)
		}
	}
	now = now.Add(2500 * time.Millisecond) // two and a half pings refilled
	for i := 0; i < 2; i++ {
		if !ping() {
			t.Fatalf("refilled ping %d refused", i+1)
		}
	}
	if g.Flooded() {
		t.Fatal("flooded within the budget")
	}
	if ping() {
		t.Fatal("a ping past the budget was answered")
	}
	if !g.Flooded() {
		t.Fatal("not flooded past the budget")
	}
	now = now.Add(time.Hour)
	if ping() {
		t.Fatal("a flooded connection answered a ping again")
	}
}
