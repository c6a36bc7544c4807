package client_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentcall/acbridge/agent"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
)

// An engagement opens the microphone of a session without explicit turns
// only between Start and Stop (or Cancel): before and after, the device is
// closed and the agent receives no packet.
func TestEngagementSendsOnlyWhileOpen(t *testing.T) {
	var heard atomic.Int64
	ra := startRTCAgent(t, &agent.Options{NoExplicitTurns: true, OnAudioPacket: func(int64) { heard.Add(1) }})
	ctx := context.Background()
	ag, err := client.Discover(ctx, ra.srv.URL, "", &client.Policy{AllowInsecureLocal: true, TotalTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if ag.Card.ExplicitTurns() {
		t.Fatal("the card says supportsExplicitTurns")
	}
	rs := clienttest.StartRTC(t, ag, nil)
	mic, s, tr := rs.Mic, rs.Session, rs.Transport
	if _, err := client.NewPushToTalk(s, tr); !errors.Is(err, client.ErrNoExplicitTurns) {
		t.Fatalf("push-to-talk without explicit turns: %v", err)
	}
	e, err := client.NewEngagement(s, tr)
	if err != nil {
		t.Fatal(err)
	}

	time.Sleep(time.Second)
	if n := heard.Load(); n != 0 || mic.Stats().Runs != 0 {
		t.Fatalf("before Start: %d packets, %d microphone runs", n, mic.Stats().Runs)
	}

	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); !errors.Is(err, client.ErrEngaged) {
		t.Fatalf("a second Start: %v", err)
	}
	time.Sleep(time.Second)
	sent, err := e.Stop(ctx)
	if err != nil || sent < 40 || mic.Running() || e.Open() {
		t.Fatalf("Stop after 1 s: %d packets, %v; running %v, open %v", sent, err, mic.Running(), e.Open())
	}
	// Every packet sent arrives, and none after.
	for deadline := time.Now().Add(5 * time.Second); heard.Load() < sent; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the agent heard %d of %d packets", heard.Load(), sent)
		}
	}
	time.Sleep(500 * time.Millisecond)
	if n := heard.Load(); n != sent {
		t.Fatalf("the agent heard %d packets, %d were sent", n, sent)
	}

	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	more, err := e.Cancel()
	if err != nil || more == 0 || mic.Running() {
		t.Fatalf("Cancel: %d packets, %v; running %v", more, err, mic.Running())
	}
	time.Sleep(500 * time.Millisecond)
	if n := heard.Load(); n != sent+more {
		t.Fatalf("the agent heard %d packets, %d were sent", n, sent+more)
	}
	if n, err := e.Stop(ctx); n != 0 || err != nil {
		t.Fatalf("Stop without an engagement: %d, %v", n, err)
	}
}

// A session with explicit turns has push-to-talk, not engagements.
func TestEngagementNeedsNoExplicitTurns(t *testing.T) {
	rs := clienttest.StartRTCTurns(t, discoverRTC(t, startRTCAgent(t, nil)), nil)
	if _, err := client.NewEngagement(rs.Session, rs.Transport); !errors.Is(err, client.ErrExplicitTurnsNegotiated) {
		t.Fatalf("got %v", err)
	}
}

// PushToTalk.Cancel returns once the microphone's last packet is out, so
// the agent receives no packet after the cancelled turn. (A packet outside
// the turn before its first one is the turn's start overtaken by the
// first packet: RTP and the data channel are separate paths.)
func TestCancelledTurnSendsNothingAfter(t *testing.T) {
	var inside, after atomic.Int64
	ra := startRTCAgent(t, &agent.Options{OnAudioPacket: func(turn int64) {
		switch {
		case turn != 0:
			inside.Add(1)
		case inside.Load() > 0:
			after.Add(1)
		}
	}})
	rs := pressedTurn(t, ra)
	time.Sleep(500 * time.Millisecond)
	if err := rs.PTT.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	if inside.Load() < 10 || after.Load() != 0 {
		t.Fatalf("%d packets in the turn, %d after its cancel", inside.Load(), after.Load())
	}
}
