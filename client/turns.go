package client

import (
	"context"

	"github.com/agentcall/acbridge/protocol"
)

// sendTurn builds a message with the next turn number and sends it; the
// number is taken under the same lock as the send, so concurrent callers
// never collide.
func (s *Session) sendTurn(ctx context.Context, build func(turn int64) *protocol.ClientMessage) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	turn := s.st.LastTurn() + 1
	if err := s.sendLocked(ctx, build(turn)); err != nil {
		return 0, err
	}
	return turn, nil
}

// turnContext is Options.Context's entries now, at most
// protocol.MaxContextEntries of them.
func (s *Session) turnContext() []protocol.ContextEntry {
	if s.context == nil {
		return nil
	}
	c := s.context()
	return c[:min(len(c), protocol.MaxContextEntries)]
}

// Say sends a user.turn with text.
func (s *Session) Say(ctx context.Context, text string) (int64, error) {
	return s.sendTurn(ctx, func(turn int64) *protocol.ClientMessage {
		return &protocol.ClientMessage{Type: protocol.TypeUserTurn, Turn: turn, Text: text, Context: s.turnContext()}
	})
}

// Observe sends an observation. interactionID answers the pending request
// (empty for a user-initiated collection). The observation is checked
// against the negotiated set, the image rules and the pending request first:
// a send outside them is refused locally with a *protocol.Error.
func (s *Session) Observe(ctx context.Context, obs *protocol.Observation, interactionID string) (int64, error) {
	return s.sendTurn(ctx, func(turn int64) *protocol.ClientMessage {
		return &protocol.ClientMessage{Type: protocol.TypeUserObservation, Turn: turn, InteractionID: interactionID, Observation: obs,
			Context: s.turnContext()}
	})
}

// Ack acknowledges a sequence.
func (s *Session) Ack(ctx context.Context, seq int64) error {
	return s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeAck, Sequence: seq})
}

// Cancel sends response.cancel: the active run and any pending request end.
func (s *Session) Cancel(ctx context.Context) error {
	return s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeResponseCancel})
}

// StartAudioTurn opens an explicit audio turn and returns its number.
func (s *Session) StartAudioTurn(ctx context.Context) (int64, error) {
	return s.sendTurn(ctx, func(turn int64) *protocol.ClientMessage {
		return &protocol.ClientMessage{Type: protocol.TypeAudioTurnStart, Turn: turn}
	})
}

// CommitAudioTurn and CancelAudioTurn close the open audio turn. The caller
// stops the microphone first, as the spec asks.
func (s *Session) CommitAudioTurn(ctx context.Context, turn int64) error {
	return s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeAudioTurnCommit, Turn: turn})
}

func (s *Session) CancelAudioTurn(ctx context.Context, turn int64) error {
	return s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeAudioTurnCancel, Turn: turn})
}

// Negotiated is the session's usable modality set.
func (s *Session) Negotiated() []protocol.Modality {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Negotiated()
}

// Requestable is the set the agent may ask the person to collect.
func (s *Session) Requestable() []protocol.Modality {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Requestable()
}

// Pending returns the agent's pending request, if any, not yet answered.
func (s *Session) Pending() (protocol.Interaction, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.st.Pending()
	return p, ok && !p.Answered
}

// Busy reports whether a run is active or awaited.
func (s *Session) Busy() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.Busy()
}

// ExplicitTurns reports whether explicit audio turns were negotiated.
func (s *Session) ExplicitTurns() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.ExplicitTurns()
}
