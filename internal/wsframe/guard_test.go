package wsframe_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

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

// A normal close to a peer that never answers the close frame waits
// CloseWait, not the library's five seconds.
func TestCloseWaitsAtMostCloseWait(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		<-done // never reads: the client's close frame goes unanswered
		c.CloseNow()
	}))
	defer srv.Close()
	defer close(done)
	g := wsframe.NewGuard(&wsframe.GuardOptions{CloseWait: 200 * time.Millisecond})
	tr := &http.Transport{DialContext: g.Dialer((&net.Dialer{}).DialContext)}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{
		HTTPClient: &http.Client{Transport: tr}, OnPingReceived: g.OnPing})
	if err != nil {
		t.Fatal(err)
	}
	g.Prepare(c)
	start := time.Now()
	g.Close(c, nil)
	took := time.Since(start)
	t.Logf("Close took %s (CloseWait 200 ms)", took.Round(time.Millisecond))
	if took > 3*time.Second {
		t.Fatalf("Close took %s: it waited for the library's close handshake", took)
	}
}
