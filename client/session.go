package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/protocol"
)

// ErrClosed is returned by a Session's methods after it ended.
var ErrClosed = errors.New("client: session closed")

// Options configures a Session. Nil means the defaults documented per field.
type Options struct {
	// SessionID for session.start (default: 16 random hex characters).
	SessionID string
	// Modalities the client offers: hardware present now and enabled by
	// configuration. The usable set is their intersection with the card's.
	Modalities []protocol.Modality
	// ExplicitTurns offers audioTurnControl explicit when the card permits it.
	ExplicitTurns bool
	// EstablishTimeout bounds the wait for session.established (default 10 s).
	EstablishTimeout time.Duration
	// Logger receives protocol errors (codes only; default: discard).
	Logger *slog.Logger
	// RunBudget bounds each run (nil: DefaultRunBytes, DefaultRunEvents).
	RunBudget *RunBudget
	// Context, if set, is asked for the AG-UI Context entries to carry on
	// each user.turn and user.observation, as they are at the send (the
	// visitor's language, say). It is called with the session's lock held
	// and must return promptly; nil: none.
	Context func() []protocol.ContextEntry
}

// Session is one logical AG-UI session over a Transport. Its methods are safe
// for concurrent use. Session-local state (turns, the pending request) dies
// with it: a reconnect starts a new Session.
type Session struct {
	t      Transport
	log    *slog.Logger
	events chan protocol.Envelope
	done   chan struct{}
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu  sync.Mutex // guards st, err and the order of sends
	st  *protocol.Session
	err error

	budget    budget // the read loop's
	lastFrame int    // size of the envelope recv returned last
	// lastUnsolicited: the envelope recv returned last started a run that
	// nothing asked for.
	lastUnsolicited bool
	now             func() time.Time
	context         func() []protocol.ContextEntry // Options.Context

	closeOnce sync.Once
}

// Start sends session.start over t, waits for session.established and then
// reads envelopes in the background until the session ends. t is owned by
// the Session from here on, even when Start fails.
func Start(ctx context.Context, t Transport, card *protocol.Card, opts *Options) (*Session, error) {
	o := Options{}
	if opts != nil {
		o = *opts
	}
	if o.SessionID == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		o.SessionID = hex.EncodeToString(b[:])
	}
	if o.EstablishTimeout == 0 {
		o.EstablishTimeout = 10 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Session{t: t, log: o.Logger, events: make(chan protocol.Envelope, 64), done: make(chan struct{}),
		st: protocol.NewSession(protocol.ConfigFromCard(card)), now: time.Now, context: o.Context}
	if !card.PhysicalAllowed() {
		// A card built or persisted outside ParseCard may name a profile
		// that cannot carry physical inputs: offer none (and ConfigFromCard
		// negotiates none, so Observe refuses every send).
		o.Modalities = nil
	}
	caps := &protocol.ClientCapabilities{PhysicalObservations: &protocol.PhysicalCapabilities{Modalities: o.Modalities}}
	if len(o.Modalities) == 0 {
		caps.PhysicalObservations = nil
	}
	if o.ExplicitTurns && card.ExplicitTurns() {
		caps.AudioTurnControl = &protocol.AudioTurnControl{Mode: "explicit"}
	}
	if caps.PhysicalObservations == nil && caps.AudioTurnControl == nil {
		caps = nil
	}
	if err := s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: o.SessionID, ClientCapabilities: caps}); err != nil {
		t.Close(nil)
		return nil, err
	}
	ectx, cancel := context.WithTimeout(ctx, o.EstablishTimeout)
	env, err := s.recv(ectx)
	cancel()
	if err != nil {
		t.Close(err)
		return nil, fmt.Errorf("client: waiting for session.established: %w", err)
	}
	if env.Event.Type != protocol.EventSessionEstablished {
		err := &protocol.Error{Code: protocol.CodeSessionOrder, Message: "the agent did not answer session.start with session.established"}
		t.Close(err)
		return nil, err
	}
	s.budget = newBudget(o.RunBudget)
	rctx, rcancel := context.WithCancel(context.Background())
	s.cancel = rcancel
	s.wg.Add(1)
	go s.readLoop(rctx)
	return s, nil
}

// recv reads, parses and applies one envelope.
func (s *Session) recv(ctx context.Context) (*protocol.Envelope, error) {
	frame, err := s.t.Recv(ctx)
	if err != nil {
		return nil, err
	}
	s.lastFrame = len(frame)
	env, err := protocol.ParseEnvelope(frame)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := env.Event; e.Type == protocol.EventFailure && !s.st.Established() {
		// The agent refused the session: its own code and message say why
		// better than the ordering error this envelope would be. Both are
		// the agent's, of any length and characters: shortened and escaped
		// for the status line and the log.
		msg, _ := protocol.Shorten(e.Message, protocol.MaxMessageLen)
		return nil, fmt.Errorf("client: the agent refused the session: %w", &protocol.Error{Code: protocol.ForLog(e.Code, 64), Message: msg})
	}
	if err := s.st.Server(env); err != nil {
		return nil, err
	}
	s.lastUnsolicited = env.Event.Type == protocol.EventRunStarted && s.st.RunUnsolicited()
	return env, nil
}

func (s *Session) readLoop(ctx context.Context) {
	defer s.wg.Done()
	var err error
	defer func() { s.finish(err) }()
	for {
		var env *protocol.Envelope
		env, err = s.recv(ctx)
		if err != nil {
			return
		}
		if s.lastUnsolicited && s.unsolicitedSeen() == 1 {
			// Once a session: the budget says when it is too many.
			s.log.Info("the agent started a run no turn asked for; a few are tolerated", "allowed", s.budget.max.Unsolicited)
		}
		if err = s.overBudget(s.budget.count(s.now(), env.Event.Type, s.lastFrame, s.lastUnsolicited)); err != nil {
			return
		}
		if !knownEvent(env.Event.Type) {
			continue // unknown event types never grant anything: ignore
		}
		select {
		case s.events <- *env:
		case <-ctx.Done():
			err = ErrClosed
			return
		}
	}
}

func (s *Session) unsolicitedSeen() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st.UnsolicitedRuns()
}

// listening tells the session state that the microphone is open outside
// explicit audio turns (see protocol.Session.Listening).
func (s *Session) listening(open bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Listening(open)
}

func knownEvent(t string) bool {
	switch t {
	case protocol.EventRunStarted, protocol.EventTextDelta, protocol.EventSpeechSegment, protocol.EventRunCompleted,
		protocol.EventInteractionRequested, protocol.EventInteractionResolved, protocol.EventFailure:
		return true
	}
	return false
}

// finish records why the session ended, closes the transport (naming a
// protocol error in the close reason) and releases Done and Events.
func (s *Session) finish(err error) {
	s.closeOnce.Do(func() {
		var pe *protocol.Error
		if errors.As(err, &pe) {
			s.log.Warn("agent session ended by a protocol error", "code", pe.Code)
			s.t.Close(err)
		} else {
			s.t.Close(nil)
		}
		s.mu.Lock()
		if s.err == nil {
			s.err = err
		}
		s.mu.Unlock()
		close(s.events)
		close(s.done)
	})
}

// Events delivers the agent's known events in order; it is closed when the
// session ends. The owner must keep reading it.
func (s *Session) Events() <-chan protocol.Envelope { return s.events }

// Done is closed when the session has ended; Err then says why.
func (s *Session) Done() <-chan struct{} { return s.done }

// Err is why the session ended (nil while it runs; ErrClosed after Close).
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close ends the session without session.end (use End for a clean close)
// and waits for its goroutine. Safe to call more than once.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.err == nil {
		s.err = ErrClosed
	}
	s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
	s.t.Close(nil)
	s.wg.Wait()
	s.finish(ErrClosed)
	return nil
}

// Fail ends the session because of cause, a bound its owner applies (a
// *protocol.Error names it): session.end is sent, the transport closed
// naming cause, and Err reports cause.
func (s *Session) Fail(ctx context.Context, cause error) {
	_ = s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	s.mu.Lock()
	if s.err == nil {
		s.err = cause
	}
	s.mu.Unlock()
	s.t.Close(cause)
	if s.cancel != nil {
		s.cancel()
	}
	s.wg.Wait()
	s.finish(cause)
}

// End sends session.end and closes.
func (s *Session) End(ctx context.Context) error {
	err := s.send(ctx, &protocol.ClientMessage{Type: protocol.TypeSessionEnd})
	s.Close()
	return err
}

// send checks m against the session state and sends it; a message the
// state refuses is never sent and changes nothing.
func (s *Session) send(ctx context.Context, m *protocol.ClientMessage) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sendLocked(ctx, m)
}

func (s *Session) sendLocked(ctx context.Context, m *protocol.ClientMessage) error {
	if s.err != nil {
		return ErrClosed
	}
	frame, err := protocol.MarshalClientMessage(m)
	if err != nil {
		return err
	}
	if err := s.st.Client(m); err != nil {
		return err
	}
	// A failed send means a dead connection: the read loop ends the session.
	if err := s.t.Send(ctx, frame); err != nil {
		return fmt.Errorf("client: send: %w", err)
	}
	return nil
}
