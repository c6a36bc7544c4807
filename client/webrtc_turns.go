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
	p.t.markReleased()
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

// ErrExplicitTurnsNegotiated is returned by NewEngagement on a session
// that negotiated explicit audio turns: those open the microphone per turn
// with PushToTalk.
var ErrExplicitTurnsNegotiated = errors.New("client: this session negotiated explicit audio turns; use PushToTalk")

// Engagement opens the microphone of a session without explicit audio
// turns only while a person asked for it (docs/architecture.md principle 3): Start on
// a press, Stop on the next press or when the engagement times out, Cancel
// on a cancel. The agent, which has no turn messages to go by, hears
// exactly the engagement's audio.
//
// Outside an engagement the device is closed and the track carries no
// packet at all, rather than encoded digital silence: what reaches the
// agent is then exactly what the person asked to send, which the agent,
// an operator or a packet capture can count (zero), and no silence is
// presented to the agent as if it were the room. ICE consent checks, not
// RTP, keep the connection alive meanwhile.
//
// Methods are safe for concurrent use.
type Engagement struct {
	s *Session
	t *WebRTCTransport

	mu     sync.Mutex
	open   bool
	sentAt int64 // the transport's sent-packet count when it opened
}

// NewEngagement ties a session without explicit turns to the WebRTC
// transport it runs on.
func NewEngagement(s *Session, t *WebRTCTransport) (*Engagement, error) {
	if s.ExplicitTurns() {
		return nil, ErrExplicitTurnsNegotiated
	}
	if t.mic == nil {
		return nil, ErrNoMicrophone
	}
	return &Engagement{s: s, t: t}, nil
}

// ErrEngaged is returned by Start while an engagement is open.
var ErrEngaged = errors.New("client: the microphone is already open for an engagement")

// Start opens the microphone.
func (e *Engagement) Start(ctx context.Context) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.open {
		return ErrEngaged
	}
	// Counted before the microphone starts: its first packet may be on
	// the track before StartMic returns.
	at := e.t.stats.sent.Load()
	if err := e.t.StartMic(ctx); err != nil {
		return err
	}
	e.open, e.sentAt = true, at
	// The agent answers what it hears: its runs are the person's.
	e.s.listening(true)
	return nil
}

// Stop closes the microphone once what it recorded up to now is on the
// track, and returns how many packets the engagement sent. Without an open
// engagement it does nothing.
func (e *Engagement) Stop(ctx context.Context) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.open {
		return 0, nil
	}
	e.open = false
	defer e.s.listening(false)
	err := e.t.StopMic(ctx)
	if err != nil {
		_ = e.t.DiscardMic()
	}
	return e.t.stats.sent.Load() - e.sentAt, err
}

// Cancel closes the microphone at once, dropping what it had not yet
// sent, and returns how many packets the engagement sent.
func (e *Engagement) Cancel() (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.open {
		return 0, nil
	}
	e.open = false
	e.s.listening(false)
	err := e.t.DiscardMic()
	return e.t.stats.sent.Load() - e.sentAt, err
}

// Open reports whether an engagement is open.
func (e *Engagement) Open() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.open
}

// Capturing reports whether the microphone still records: false in an
// open engagement means the device failed or went away under it.
func (e *Engagement) Capturing() bool {
	return e.t.mic.Running()
}
