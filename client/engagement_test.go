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

// packets counts the audio packets an agent hears; wait waits for a count.
type packets struct {
	n       atomic.Int64
	changed chan struct{}
}

func newPackets() *packets { return &packets{changed: make(chan struct{}, 1)} }

func (p *packets) heard(int64) {
	p.n.Add(1)
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

func (p *packets) Load() int64 { return p.n.Load() }

// wait waits up to 10 s until n packets were heard: the microphone's
// packets take their real time, which a busy machine stretches.
func (p *packets) wait(t *testing.T, n int64) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for p.n.Load() < n {
		select {
		case <-p.changed:
		case <-deadline:
			t.Fatalf("the agent heard %d packets, want %d", p.n.Load(), n)
		}
	}
}

func TestEngagementSendsOnlyWhileOpen(t *testing.T) {
	heard := newPackets()
	ra := startRTCAgent(t, &agent.Options{NoExplicitTurns: true, OnAudioPacket: heard.heard})
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

	// The session itself opens no microphone: not before Start, checked
	// here, nor meanwhile, shown by the first Stop's single capture run.
	if n := heard.Load(); n != 0 || mic.Stats().Runs != 0 {
		t.Fatalf("before Start: %d packets, %d microphone runs", n, mic.Stats().Runs)
	}

	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := e.Start(ctx); !errors.Is(err, client.ErrEngaged) {
		t.Fatalf("a second Start: %v", err)
	}
	heard.wait(t, 40)
	sent, err := e.Stop(ctx)
	if err != nil || sent < 40 || mic.Running() || e.Open() {
		t.Fatalf("Stop after 1 s: %d packets, %v; running %v, open %v", sent, err, mic.Running(), e.Open())
	}
	if runs := mic.Stats().Runs; runs != 1 {
		t.Fatalf("%d microphone runs for one engagement", runs)
	}
	// Every packet sent arrives, and none after: the count sent is the
	// client's own, so a packet beyond it was written after Stop.
	heard.wait(t, int64(sent))
	if n := heard.Load(); n != int64(sent) {
		t.Fatalf("the agent heard %d packets, %d were sent", n, sent)
	}

	if err := e.Start(ctx); err != nil {
		t.Fatal(err)
	}
	heard.wait(t, int64(sent)+1)
	more, err := e.Cancel()
	if err != nil || more == 0 || mic.Running() {
		t.Fatalf("Cancel: %d packets, %v; running %v", more, err, mic.Running())
	}
	heard.wait(t, int64(sent+more))
	if n := heard.Load(); n != int64(sent+more) {
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
	var before, inside, after atomic.Int64
	heard := make(chan struct{}, 1)
	ra := startRTCAgent(t, &agent.Options{OnAudioPacket: func(turn int64) {
		switch {
		case turn != 0:
			inside.Add(1)
		case inside.Load() > 0:
			after.Add(1)
		default:
			before.Add(1)
		}
		select {
		case heard <- struct{}{}:
		default:
		}
	}})
	total := func() int64 { return before.Load() + inside.Load() + after.Load() }
	rs := pressedTurn(t, ra)
	waitHeard := func(cond func() bool) {
		t.Helper()
		for deadline := time.After(10 * time.Second); !cond(); {
			select {
			case <-heard:
			case <-deadline:
				t.Fatalf("%d packets before the turn, %d in it, %d after", before.Load(), inside.Load(), after.Load())
			}
		}
	}
	waitHeard(func() bool { return inside.Load() >= 10 })
	if err := rs.PTT.Cancel(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The microphone is stopped and its queue thrown away, so what was
	// written is all there will be: once the agent heard it all, a packet
	// of the cancelled turn arriving after its cancel would be counted.
	if rs.Mic.Running() {
		t.Fatal("the microphone runs after the cancel")
	}
	sent := rs.Transport.Stats().PacketsSent
	waitHeard(func() bool { return total() >= sent })
	if inside.Load() < 10 || after.Load() != 0 || total() != sent || rs.Transport.Stats().PacketsSent != sent {
		t.Fatalf("%d packets in the turn, %d after its cancel, %d heard of %d sent (%d now)",
			inside.Load(), after.Load(), total(), sent, rs.Transport.Stats().PacketsSent)
	}
}
