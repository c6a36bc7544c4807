package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// Commands the reference proof understands. Matching is case-insensitive on
// the command words and tolerant of extra spaces; a label keeps its case.
var (
	reTeach   = regexp.MustCompile(`^(?i:teach\s+object)(?:\s+((?s).*))?$`)
	reConfirm = regexp.MustCompile(`^(?i:confirm\s+object)$`)
	reCancel  = regexp.MustCompile(`^(?i:cancel\s+teaching)$`)
	reScan    = regexp.MustCompile(`^(?i:scan\s+an\s+object)$`)
	rePhoto   = regexp.MustCompile(`^(?i:take\s+a\s+photo)$`)
)

// reply is what a transport does after one client frame: send envelopes in
// order, then close with closeErr's status (a rule violation that ends the
// connection) or normally when ended (session.end).
type reply struct {
	envelopes []protocol.Envelope
	closeErr  error
	ended     bool
}

// errInternal ends a connection on which the agent would have sent an
// envelope its own session rules refuse: a bug, never the client's fault.
var errInternal = &protocol.Error{Code: "internal", Message: "the agent hit an internal error and ended the session"}

// conversation is the transport-independent side of one session: it takes
// client frames and returns the envelopes to send. Every client message
// goes through protocol.Session.Client before anything else looks at it, so
// a rejected message changes nothing; every envelope goes through
// protocol.Session.Server before it is returned, so the agent cannot emit
// an invalid sequence. A transport adapter (the WebSocket or the WebRTC
// data channel, see sessionConn) only moves frames. Not safe for concurrent use: one
// adapter goroutine owns it.
type conversation struct {
	sess *protocol.Session
	mem  *memory
	log  *slog.Logger
	out  []protocol.Envelope
	bug  error // set when an envelope was refused by sess.Server
}

func newConversation(cfg protocol.SessionConfig, log *slog.Logger) *conversation {
	return &conversation{sess: protocol.NewSession(cfg), mem: newMemory(), log: log}
}

// frameViolation reports whether err breaks a transport frame rule, after
// which the connection is closed (protocol doc: frame-level violations
// close the connection after the failure).
func frameViolation(err error) bool {
	for _, code := range protocol.Codes(err) {
		switch code {
		case protocol.CodeFrameSize, protocol.CodeFrameBinary, protocol.CodeFrameUTF8:
			return true
		}
	}
	return false
}

// receive handles one client frame, which may not have been checked yet.
func (c *conversation) receive(frame []byte) reply {
	m, err := protocol.ParseClientMessage(frame)
	if err != nil {
		return c.reject(err)
	}
	if err := c.sess.Client(m); err != nil {
		return c.reject(err)
	}
	c.handle(m)
	return c.flush()
}

// reject answers a refused frame or message with a failure carrying its
// code. Nothing else changes, except that the connection ends when a frame
// rule was broken or no session exists yet: session.established must be
// sequence 1, so a session cannot start after a failure has taken it.
func (c *conversation) reject(err error) reply {
	code := "unknown"
	if codes := protocol.Codes(err); len(codes) > 0 {
		code = codes[0]
	}
	c.log.Info("agent: rejected client input", "code", code)
	if !c.sess.Started() {
		env := protocol.Envelope{Sequence: 1, Event: protocol.Failure(err)}
		return reply{envelopes: []protocol.Envelope{env}, closeErr: err}
	}
	c.emit(protocol.Failure(err))
	r := c.flush()
	if frameViolation(err) {
		r.closeErr = err
	}
	return r
}

// close releases the session's memory: on disconnect the spec discards
// session-local proposals and reference memory.
func (c *conversation) close() { c.mem.clear() }

func (c *conversation) flush() reply {
	r := reply{envelopes: c.out, ended: c.sess.Ended()}
	c.out = nil
	if c.bug != nil {
		r.closeErr, c.bug = errInternal, nil
	}
	return r
}

// emit queues ev at the next sequence if the session rules allow it.
func (c *conversation) emit(ev protocol.Event) {
	if c.bug != nil {
		return
	}
	env := protocol.Envelope{Sequence: c.sess.LastSequence() + 1, Event: ev}
	if err := c.sess.Server(&env); err != nil {
		c.log.Error("agent: refused own envelope", "type", ev.Type, "err", err)
		c.bug = fmt.Errorf("agent: %w", err)
		return
	}
	c.out = append(c.out, env)
}

func (c *conversation) text(s string) {
	c.emit(protocol.Event{Type: protocol.EventTextDelta, Text: s})
}

func (c *conversation) complete() {
	c.emit(protocol.Event{Type: protocol.EventRunCompleted})
}

// handle acts on a message the session rules accepted.
func (c *conversation) handle(m *protocol.ClientMessage) {
	switch m.Type {
	case protocol.TypeSessionStart:
		c.log.Info("agent: session started", "negotiated", c.sess.Negotiated(), "requestable", c.sess.Requestable())
		c.emit(protocol.Event{Type: protocol.EventSessionEstablished})
	case protocol.TypeUserTurn:
		c.noteLanguage(m.Context)
		c.emit(protocol.Event{Type: protocol.EventRunStarted})
		c.turn(m.Turn, m.Text)
	case protocol.TypeUserObservation:
		c.noteLanguage(m.Context)
		if m.InteractionID != "" {
			c.answered(m)
			return
		}
		c.emit(protocol.Event{Type: protocol.EventRunStarted})
		if o := m.Observation.Object; o != nil {
			text, _ := c.mem.observe(o.ObjectRef)
			c.text(text)
		} else {
			c.text(textPhotoOnly)
		}
		c.complete()
	case protocol.TypeResponseCancel:
		// Spec: response.cancel cancels the active run and pending
		// collection/proposal.
		c.mem.cancelTeaching()
		if p, ok := c.sess.Pending(); ok {
			c.emit(protocol.Event{Type: protocol.EventInteractionResolved, InteractionID: p.ID, Outcome: protocol.OutcomeCancelled})
		}
		if c.sess.RunActive() {
			c.complete()
		}
	case protocol.TypeSessionEnd:
		c.log.Info("agent: session ended by client")
		c.mem.clear()
	case protocol.TypeAck:
		// Acknowledgements need no answer; there is no resume to trim.
	}
}

// answered completes the run that asked for the observation: the answer
// belongs to it, so no new run starts (as in the golden trace).
func (c *conversation) answered(m *protocol.ClientMessage) {
	text := textCollected
	if o := m.Observation.Object; o != nil {
		// A collected scan is still a scan of that object: it becomes the
		// current object and switches away from another one's proposal.
		if _, invalidated := c.mem.observe(o.ObjectRef); invalidated {
			text = withInvalidation(text)
		}
	}
	c.emit(protocol.Event{Type: protocol.EventInteractionResolved, InteractionID: m.InteractionID, Outcome: protocol.OutcomeAnswered})
	c.text(text)
	c.complete()
}

// turn answers one text turn inside the run already started.
func (c *conversation) turn(n int64, text string) {
	text = strings.TrimSpace(text)
	switch {
	case reScan.MatchString(text):
		if c.request(n, protocol.NFC) {
			return
		}
		c.text(textCannotRequestNFC)
	case rePhoto.MatchString(text):
		if c.request(n, protocol.Photo) {
			return
		}
		c.text(textCannotRequestImg)
	case reConfirm.MatchString(text):
		c.text(c.mem.confirm())
	case reCancel.MatchString(text):
		if c.mem.cancelTeaching() {
			c.text(textCancelled)
		} else {
			c.text(textNothingToCancel)
		}
	default:
		if sub := reTeach.FindStringSubmatch(text); sub != nil {
			c.text(c.mem.teach(sub[1]))
		} else {
			c.text(textGeneric)
		}
	}
	c.complete()
}

// request asks the user to collect modality mod, leaving the run open until
// the answer or a cancel; it reports false when mod is not requestable
// (negotiated ∩ agentRequests).
func (c *conversation) request(turn int64, mod protocol.Modality) bool {
	if !slices.Contains(c.sess.Requestable(), mod) {
		return false
	}
	c.emit(protocol.Event{
		Type:          protocol.EventInteractionRequested,
		InteractionID: fmt.Sprintf("turn-%d-%s", turn, mod),
		Kind:          protocol.ModalityKind(mod),
		Prompt:        textPrompt,
		SpokenPrompt:  textPrompt,
	})
	return true
}

// isProtocolError reports whether err is a rule violation by the peer
// rather than a transport failure.
func isProtocolError(err error) bool {
	var one *protocol.Error
	var list protocol.Errors
	return errors.As(err, &one) || errors.As(err, &list)
}
