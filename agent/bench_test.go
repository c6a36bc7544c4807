package agent

import (
	"log/slog"
	"testing"

	"github.com/agentcall/acbridge/protocol"
)

// BenchmarkScanRoundTrip measures one unsolicited scan over a real loopback
// WebSocket: observation out, run.started/text.delta/run.completed back.
func BenchmarkScanRoundTrip(b *testing.B) {
	c := startSession(b, startAgent(b, nil), both...)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c.scan(ref("bench"))
	}
}

// BenchmarkConversationPhoto measures the transport-free cost of one
// answered photo request, dominated by the receiver's image checks.
func BenchmarkConversationPhoto(b *testing.B) {
	photo := photoObs(b)
	a, err := New(&Options{Physical: true})
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	conv := newConversation(a.cfg, slog.New(slog.DiscardHandler))
	start, _ := protocol.MarshalClientMessage(&protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "b",
		ClientCapabilities: &protocol.ClientCapabilities{PhysicalObservations: &protocol.PhysicalCapabilities{Modalities: both}}})
	conv.receive(start)
	b.ReportAllocs()
	b.ResetTimer()
	turn := int64(0)
	for range b.N {
		turn++
		req, _ := protocol.MarshalClientMessage(&protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: turn, Text: "take a photo"})
		r := conv.receive(req)
		id := r.envelopes[1].Event.InteractionID
		turn++
		ans, _ := protocol.MarshalClientMessage(&protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: turn, InteractionID: id, Observation: photo})
		if r := conv.receive(ans); len(r.envelopes) != 3 {
			b.Fatalf("answer: %+v", r)
		}
	}
}
