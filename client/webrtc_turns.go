package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// ErrNoExplicitTurns is returned by NewPushToTalk when the session did not
// negotiate explicit audio turns (the card lacks supportsExplicitTurns, or
// Options.ExplicitTurns was not set).
var ErrNoExplicitTurns = errors.New("client: explicit audio turns were not negotiated: the agent's card must say supportsExplicitTurns and Options.ExplicitTurns must be set")

// ErrTurnOpen is returned by Press while a turn is already open.
var ErrTurnOpen = errors.New("client: an audio turn is already open; release or cancel it first")

// PushToTalk drives explicit audio turns from a push-to-talk control
// (spec "WebSocket and WebRTC": audio.turn.start, .commit and .cancel
// carry one turn number, one audio turn is open at a time, and the client
// stops its microphone before commit or cancel). The turn number comes from
// the session's one counter shared with text and observation turns, and the
// session's rules refuse a press while the agent is answering.
//
// The bridge calls Press on the button's press and Release on its release;
// Cancel abandons a turn (a long press of cancel, leaving the screen).
// Methods are safe for concurrent use.
type PushToTalk struct {
	s *Session
	t *WebRTCTransport

	mu   sync.Mutex
	turn int64 // the open turn, 0 when none
}

// NewPushToTalk ties a session to the WebRTC transport it runs on.
func NewPushToTalk(s *Session, t *WebRTCTransport) (*PushToTalk, error) {
	if !s.ExplicitTurns() {
		return nil, ErrNoExplicitTurns
	}
	if t.mic == nil {
		return nil, ErrNoMicrophone
	}
	return &PushToTalk{s: s, t: t}, nil
}

// Press sends audio.turn.start with the next turn number, then opens the
// microphone. If the microphone does not start, the turn is cancelled
// again and the microphone's error returned: no turn stays open without
// audio.
func (p *PushToTalk) Press(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.turn != 0 {
		return 0, ErrTurnOpen
	}
	turn, err := p.s.StartAudioTurn(ctx)
	if err != nil {
		return 0, err
	}
	if err := p.t.StartMic(ctx); err != nil {
		return 0, errors.Join(fmt.Errorf("client: turn %d cancelled: %w", turn, err), p.s.CancelAudioTurn(ctx, turn))
	}
	p.turn = turn
	return turn, nil
}

// Release stops the microphone, waits until its last packet is on the
// track, then sends audio.turn.commit, after which the agent answers. If
// the capture failed under the turn, the turn is cancelled instead of
// committing broken audio. Release without an open turn does nothing and
// returns 0.
func (p *PushToTalk) Release(ctx context.Context) (int64, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	turn := p.turn
	if turn == 0 {
		return 0, nil
	}
	p.turn = 0
	if err := p.t.StopMic(ctx); err != nil {
		_ = p.t.DiscardMic()
		return turn, errors.Join(fmt.Errorf("client: turn %d cancelled: %w", turn, err), p.s.CancelAudioTurn(ctx, turn))
	}
	return turn, p.s.CommitAudioTurn(ctx, turn)
}

// Cancel stops the microphone, drops its unsent packets and sends
// audio.turn.cancel. Without an open turn it does nothing.
func (p *PushToTalk) Cancel(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	turn := p.turn
	if turn == 0 {
		return nil
	}
	p.turn = 0
	_ = p.t.DiscardMic()
	return p.s.CancelAudioTurn(ctx, turn)
}

// Open returns the open turn's number, if a turn is open.
func (p *PushToTalk) Open() (int64, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.turn, p.turn != 0
}
