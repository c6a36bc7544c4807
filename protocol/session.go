package protocol

import "slices"

// SessionConfig is what a session needs from the card.
type SessionConfig struct {
	Accepted      []Modality
	AgentRequests []Modality
	ExplicitTurns bool // the card's supportsExplicitTurns
}

// ConfigFromCard extracts a SessionConfig. A card whose profile cannot
// carry physical inputs (Card.PhysicalAllowed) yields none, so that a
// session on it negotiates nothing and refuses every observation.
func ConfigFromCard(c *Card) SessionConfig {
	if !c.PhysicalAllowed() {
		return SessionConfig{ExplicitTurns: c.ExplicitTurns()}
	}
	return SessionConfig{
		Accepted:      c.Params.PhysicalObservations.Accepted,
		AgentRequests: c.Params.PhysicalObservations.AgentRequests,
		ExplicitTurns: c.ExplicitTurns(),
	}
}

// Interaction is a pending agent request.
type Interaction struct {
	ID       string
	Kind     string
	Modality Modality
	Answered bool // the client's answer was accepted; resolution not yet seen
}

// Session is the ordering state of one logical session, fed with the
// messages of both directions in the order they crossed the wire. The
// client, the reference agent and the trace checker all use it, so the
// three cannot disagree on the rules (spec "Session and input",
// "Agent-requested collection"):
//
//   - session.start first and once; session.established at sequence 1;
//     each later envelope at a greater sequence (gaps allowed);
//   - one strictly increasing turn counter for user.turn, user.observation
//     and audio.turn.start;
//   - one run at a time: a new turn is refused while a run is active or
//     its run.started is still awaited, except the observation that answers
//     the pending interaction;
//   - one pending interaction, requested only for a negotiated, requestable
//     modality, answered once with its id and modality, resolved once;
//   - one open audio turn, only after explicit turns were negotiated.
//
// Where the contract sets no order, the state accepts: a request may come
// outside a run and stay pending across runs, a run may complete while a
// request is pending, and the answer to a pending request is accepted
// whatever the run state.
//
// The server "responds to a processed turn with run.started": a run that no
// turn, observation, committed audio turn or open microphone (Listening)
// asked for is unsolicited. It is accepted — a greeting right after
// session.established is not counted, and one run is allowed per
// solicitation so an agent may answer in a run of its own after a request
// resolved — but counted (UnsolicitedRuns), so that the owner can bound an
// agent that talks to nobody.
//
// A rejected message returns an *Error and leaves the state unchanged.
// Session is not safe for concurrent use; its owner serializes.
type Session struct {
	cfg         SessionConfig
	started     bool
	established bool
	ended       bool
	negotiated  []Modality
	explicit    bool
	lastTurn    int64
	lastSeq     int64
	awaitingRun bool
	runActive   bool
	pending     *Interaction
	audioTurn   int64

	// solicited: the person asked for something since the last run began,
	// so the next run is theirs. listening: the microphone is open outside
	// explicit turns; every run then answers the person.
	solicited, listening bool
	unsolicited          int64
	runUnsolicited       bool
}

// NewSession returns the state of a session not yet started.
func NewSession(cfg SessionConfig) *Session { return &Session{cfg: cfg} }

// Negotiated is the usable modality set (empty before session.start).
func (s *Session) Negotiated() []Modality { return slices.Clone(s.negotiated) }

// Requestable is the set the agent may request: negotiated ∩ agentRequests.
func (s *Session) Requestable() []Modality { return Negotiate(s.cfg.AgentRequests, s.negotiated) }

// ExplicitTurns reports whether explicit audio turns were negotiated.
func (s *Session) ExplicitTurns() bool { return s.explicit }

// Started, Established and Ended report the session's phase.
func (s *Session) Started() bool     { return s.started }
func (s *Session) Established() bool { return s.established }
func (s *Session) Ended() bool       { return s.ended }

// LastTurn is the highest accepted turn; the next turn must exceed it.
func (s *Session) LastTurn() int64 { return s.lastTurn }

// LastSequence is the sequence of the last accepted envelope.
func (s *Session) LastSequence() int64 { return s.lastSeq }

// Busy reports whether a run is active or awaited.
func (s *Session) Busy() bool { return s.runActive || s.awaitingRun }

// RunActive reports whether a run is active.
func (s *Session) RunActive() bool { return s.runActive }

// UnsolicitedRuns is how many runs started with nothing to answer.
func (s *Session) UnsolicitedRuns() int64 { return s.unsolicited }

// RunUnsolicited reports whether the active (or last) run was unsolicited.
func (s *Session) RunUnsolicited() bool { return s.runUnsolicited }

// Listening tells the state that the client's microphone is open without
// explicit audio turns (an engagement): the person speaks with no turn
// message, so the runs that answer them are solicited while it is open,
// and one more after it closes.
func (s *Session) Listening(open bool) {
	if s.listening && !open {
		s.solicited = true
	}
	s.listening = open
}

// AudioTurn is the open audio turn, or 0.
func (s *Session) AudioTurn() int64 { return s.audioTurn }

// Pending returns the pending interaction, if any.
func (s *Session) Pending() (Interaction, bool) {
	if s.pending == nil {
		return Interaction{}, false
	}
	return *s.pending, true
}

// Client checks a client message against the state and applies it.
// Observations are checked in full (negotiation and image rules) here.
func (s *Session) Client(m *ClientMessage) error {
	if s.ended {
		return newError(CodeSessionOrder, "the session has ended")
	}
	if !s.started {
		if m.Type != TypeSessionStart {
			return newError(CodeSessionOrder, "the first message must be session.start, not %s", quoteBounded(m.Type, 32))
		}
		s.started = true
		s.negotiated = Negotiate(s.cfg.Accepted, m.ClientCapabilities.Modalities())
		// An unpermitted audioTurnControl grants nothing; audio turns stay refused.
		s.explicit = s.cfg.ExplicitTurns && m.ClientCapabilities.ExplicitTurns()
		return nil
	}
	switch m.Type {
	case TypeSessionStart:
		return newError(CodeSessionOrder, "session.start may be sent only once")
	case TypeUserTurn:
		if err := s.checkNewTurn(m.Turn); err != nil {
			return err
		}
		s.lastTurn, s.awaitingRun, s.solicited = m.Turn, true, true
	case TypeUserObservation:
		return s.observation(m)
	case TypeAck:
		if m.Sequence > s.lastSeq {
			return newError(CodeSequenceOrder, "ack of sequence %d, which has not been received (last %d)", m.Sequence, s.lastSeq)
		}
	case TypeResponseCancel:
		// Always allowed; the server's events say what it cancelled.
	case TypeSessionEnd:
		s.ended, s.pending, s.audioTurn = true, nil, 0
	case TypeAudioTurnStart:
		if !s.explicit {
			return newError(CodeAudioTurn, "explicit audio turns were not negotiated")
		}
		if s.audioTurn != 0 {
			return newError(CodeAudioTurn, "audio turn %d is still open", s.audioTurn)
		}
		if err := s.checkNewTurn(m.Turn); err != nil {
			return err
		}
		s.lastTurn, s.audioTurn = m.Turn, m.Turn
	case TypeAudioTurnCommit, TypeAudioTurnCancel:
		if s.audioTurn == 0 || m.Turn != s.audioTurn {
			return newError(CodeAudioTurn, "%s for turn %d, but the open audio turn is %d", m.Type, m.Turn, s.audioTurn)
		}
		s.audioTurn = 0
		if m.Type == TypeAudioTurnCommit {
			s.awaitingRun, s.solicited = true, true
		}
	default:
		return newError(CodeMessageSchema, "unknown client message type %s", quoteBounded(m.Type, 32))
	}
	return nil
}

func (s *Session) checkNewTurn(turn int64) error {
	if turn <= s.lastTurn {
		return newError(CodeTurnOrder, "turn %d is not greater than the last turn %d", turn, s.lastTurn)
	}
	if s.runActive || s.awaitingRun {
		return newError(CodeRunActive, "a run is active; wait for run.completed or send response.cancel")
	}
	if s.audioTurn != 0 {
		return newError(CodeAudioTurn, "audio turn %d is open; commit or cancel it first", s.audioTurn)
	}
	return nil
}

func (s *Session) observation(m *ClientMessage) error {
	if m.Observation == nil {
		return newError(CodeObservationSchema, "user.observation without an observation")
	}
	if err := CheckObservation(m.Observation, s.negotiated); err != nil {
		return err
	}
	if m.InteractionID == "" {
		if err := s.checkNewTurn(m.Turn); err != nil {
			return err
		}
		s.lastTurn, s.awaitingRun, s.solicited = m.Turn, true, true
		return nil
	}
	p := s.pending
	if p == nil || p.ID != m.InteractionID || p.Answered {
		return newError(CodeInteractionUnmatched, "no pending request has this interactionId (stale, cancelled or already answered)")
	}
	if !slices.Contains(m.Observation.Modalities(), p.Modality) {
		return newError(CodeInteractionModality, "the pending request asks for %s", p.Modality)
	}
	if m.Turn <= s.lastTurn {
		return newError(CodeTurnOrder, "turn %d is not greater than the last turn %d", m.Turn, s.lastTurn)
	}
	// The agent may answer within the run that asked, or in a new run:
	// either is the person's.
	s.lastTurn, p.Answered, s.solicited = m.Turn, true, true
	return nil
}

// Server checks a server envelope against the state and applies it.
// Unknown event types only advance the sequence.
func (s *Session) Server(env *Envelope) error {
	if !s.started {
		return newError(CodeSessionOrder, "server envelope before session.start")
	}
	// "Each subsequent server envelope has a strictly increasing positive
	// sequence": gaps are conformant, repeats and decreases are not.
	if env.Sequence <= s.lastSeq {
		return newError(CodeSequenceOrder, "sequence %d after %d; sequences strictly increase", env.Sequence, s.lastSeq)
	}
	e := &env.Event
	if !s.established && e.Type != EventSessionEstablished {
		return newError(CodeSessionOrder, "the first envelope must be session.established, not %s", quoteBounded(e.Type, 32))
	}
	switch e.Type {
	case EventSessionEstablished:
		if s.established {
			return newError(CodeSessionOrder, "session.established sent twice")
		}
		if env.Sequence != 1 {
			return newError(CodeSequenceOrder, "session.established at sequence %d; the server responds with sequence 1", env.Sequence)
		}
		// Resume is optional and acbridge never asks for it: a resumed
		// session would claim state this client does not have.
		if e.Resumed {
			return newError(CodeSessionResumed, "session.established says resumed, but this client never asks to resume")
		}
		// A greeting run needs no turn.
		s.established, s.solicited = true, true
	case EventRunStarted:
		if s.runActive {
			return newError(CodeRunOrder, "run.started while a run is active")
		}
		s.runUnsolicited = !s.awaitingRun && !s.solicited && !s.listening && s.audioTurn == 0
		if s.runUnsolicited {
			s.unsolicited++
		}
		s.runActive, s.awaitingRun, s.solicited = true, false, false
	case EventTextDelta, EventSpeechSegment:
		if !s.runActive {
			return newError(CodeRunOrder, "%s outside a run", e.Type)
		}
	case EventRunCompleted:
		if !s.runActive {
			return newError(CodeRunOrder, "run.completed without an active run")
		}
		// A request may stay pending across runs: the person answers it
		// on a later turn.
		s.runActive = false
	case EventInteractionRequested:
		// Inside a run or not: the contract sets no run for a request.
		if s.pending != nil {
			return newError(CodeInteractionPending, "a request is already pending")
		}
		mod, _ := KindModality(e.Kind)
		if !slices.Contains(s.Requestable(), mod) {
			return newError(CodeInteractionForbidden, "%s is not requestable in this session", mod)
		}
		s.pending = &Interaction{ID: e.InteractionID, Kind: e.Kind, Modality: mod}
	case EventInteractionResolved:
		p := s.pending
		if p == nil || p.ID != e.InteractionID {
			return newError(CodeInteractionUnmatched, "interaction.resolved for a request that is not pending")
		}
		if e.Outcome == OutcomeAnswered && !p.Answered {
			return newError(CodeInteractionUnmatched, "interaction.resolved answered before the client answered")
		}
		s.pending = nil
	case EventFailure:
		if !s.runActive {
			// A failure outside a run answers the turn that was awaiting one.
			s.awaitingRun = false
		}
	}
	s.lastSeq = env.Sequence
	return nil
}
