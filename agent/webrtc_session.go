package agent

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
)

// errSessionOver is the cause recorded when the session ends on its own
// terms (session.end, a rule violation, idle, Close).
var errSessionOver = errors.New("agent: session over")

// rtcItem is one message from the data channel: a frame, or why reading
// stopped (a *protocol.Error for a broken frame rule).
type rtcItem struct {
	frame []byte
	err   error
}

// rtcSession is one WebRTC session, and the one owner of its pion
// callbacks: they only record what happened, start goroutines the session
// owns, or end it. run, on its own goroutine, owns the conversation;
// teardown closes the peer connection and waits for every goroutine.
type rtcSession struct {
	a      *Agent
	sid    string
	log    *slog.Logger
	peer   *rtcpeer.Peer          // the connection's lifecycle, shared with the client's side
	pc     *webrtc.PeerConnection // peer.PC
	timing *rtcpeer.Timing        // jitter and round trip of the voice
	track  *rtcpeer.VoiceTrack
	audio  *turnAudio

	ctx    context.Context // cancelled by teardown and by Agent.Close
	cancel context.CancelFunc

	items   chan rtcItem  // from the channel reader
	opened  chan struct{} // closed when the channel is accepted and detached
	replies chan uint64   // a reply finished playing (its generation)
	life    *rtcpeer.Life // peer.Life: why the session ended; the goroutines teardown waits for

	// Owned by run's goroutine.
	conv      *conversation
	replyGen  uint64
	replyStop chan struct{} // closes to stop the reply playing, nil if none

	mu       sync.Mutex
	channels int         // data channels the client opened
	tracks   int         // tracks the client sent
	grace    *time.Timer // ends a session whose ICE path died, unless restarted
	lostAt   time.Time   // when the path died

	remoteFP  string     // the client's DTLS fingerprint, from its first offer
	restartMu sync.Mutex // one ICE restart at a time

	teardownOnce sync.Once
}

func (a *Agent) newRTCSession(api *webrtc.API, sid, remote string, timing *rtcpeer.Timing) (*rtcSession, error) {
	log := a.log.With("remote", remote, "transport", protocol.TransportWebRTC)
	peer, err := rtcpeer.NewPeer(api, webrtc.Configuration{}, "agent", log, func(what string) error {
		return fmt.Errorf("agent: %s", what)
	})
	if err != nil {
		return nil, err
	}
	pc := peer.PC
	s := &rtcSession{
		a: a, sid: sid, log: log, peer: peer, pc: pc, timing: timing,
		items: make(chan rtcItem), opened: make(chan struct{}), replies: make(chan uint64), life: peer.Life,
	}
	s.ctx, s.cancel = context.WithCancel(a.ctx)
	if s.audio, err = newTurnAudio(log); err != nil {
		s.teardown()
		return nil, err
	}
	if s.track, err = rtcpeer.NewVoiceTrack("audio", "acbridge-agent"); err != nil {
		s.teardown()
		return nil, err
	}
	log.Info("agent: WebRTC offer accepted", "session", protocol.ForLog(sid, 64))
	pc.OnDataChannel(s.onDataChannel)
	pc.OnTrack(s.onTrack)
	peer.SetRecovery(s.onICE)
	return s, nil
}

// onDataChannel accepts the client's first channel if it is the profile's
// and refuses anything else by ending the session: there is no channel to
// send a failure on that the client would read as ours.
func (s *rtcSession) onDataChannel(dc *webrtc.DataChannel) {
	s.mu.Lock()
	s.channels++
	n := s.channels
	s.mu.Unlock()
	if reason := channelProblem(dc); n > 1 || reason != "" {
		if reason == "" {
			reason = "a second data channel"
		}
		s.log.Info("agent: data channel refused", "reason", reason)
		s.end(fmt.Errorf("agent: data channel refused: %s", reason))
		return
	}
	dc.OnOpen(func() {
		ch, err := rtcpeer.Detach(dc)
		if err != nil {
			s.end(fmt.Errorf("agent: data channel: %w", err))
			return
		}
		s.peer.SetChannel(ch)
		if s.goOwned(func() { s.readFrames(ch) }) {
			close(s.opened)
		}
	})
}

// channelProblem says how dc departs from the profile's channel, or "".
func channelProblem(dc *webrtc.DataChannel) string {
	switch {
	case dc.Label() != protocol.DataChannelLabel:
		return fmt.Sprintf("label %q, not %q", printable(dc.Label(), 64), protocol.DataChannelLabel)
	case dc.Protocol() != protocol.DataChannelProto:
		return fmt.Sprintf("subprotocol %q, not %q", printable(dc.Protocol(), 64), protocol.DataChannelProto)
	case !dc.Ordered():
		return "unordered; the profile's channel is ordered"
	case dc.MaxRetransmits() != nil || dc.MaxPacketLifeTime() != nil:
		return "partially reliable; the profile's channel is reliable"
	}
	return ""
}

// onTrack takes the client's one Opus track.
func (s *rtcSession) onTrack(tr *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
	c := tr.Codec()
	s.mu.Lock()
	s.tracks++
	n := s.tracks
	s.mu.Unlock()
	if n > 1 || !strings.EqualFold(c.MimeType, webrtc.MimeTypeOpus) || c.ClockRate != 48000 {
		s.log.Info("agent: track refused", "codec", printable(c.MimeType, 32), "tracks", n)
		s.end(errors.New("agent: the client's track is not the profile's one Opus track"))
		return
	}
	arrived := func(p *rtp.Packet, fresh bool) {
		turn := s.audio.arrived(p, fresh)
		if f := s.a.rtc.onAudioPacket; f != nil && turn >= 0 {
			f(turn)
		}
	}
	timing := func() (time.Duration, time.Duration) { return s.timing.Voice(s.pc) }
	v := rtcpeer.NewVoiceReader(arrived, s.audio.play, func() time.Duration { _, rtt := timing(); return rtt })
	s.audio.mu.Lock()
	s.audio.voice, s.audio.timing = v, timing
	s.audio.mu.Unlock()
	s.goOwned(func() { rtcpeer.DrainRTCP(r) })
	s.goOwned(func() { v.Run(tr) })
}

// readFrames moves data channel messages to run, applying the 0.1 frame
// rules, until the channel ends.
func (s *rtcSession) readFrames(ch *rtcpeer.Channel) {
	ch.ReadFrames(fmt.Sprintf("frame is larger than %d bytes", protocol.MaxFrameBytes), func(frame []byte, err error) bool {
		select {
		case s.items <- rtcItem{frame: frame, err: err}:
			return err == nil
		case <-s.ctx.Done():
			return false
		}
	})
}

// run serves the session until it ends, then tears it down.
func (s *rtcSession) run() {
	defer s.a.release()
	defer s.a.rtc.unregister(s)
	start := s.a.now()
	conv := newConversation(s.a.cfg, s.log)
	s.conv = conv
	frames := 0
	defer func() {
		s.stopReply()
		s.teardown()
		conv.close()
		s.audio.closeTurn(false, s.a.rtc.onAudioTurn)
		s.log.Info("agent: connection closed", "frames", frames, "packets_outside_turns", s.audio.outsideTurns(),
			"duration", s.a.now().Sub(start).Round(time.Millisecond), "cause", s.err())
	}()
	wait := time.NewTimer(channelTimeout)
	select {
	case <-s.opened:
		wait.Stop()
	case <-wait.C:
		s.log.Info("agent: no data channel opened; dropping the session")
		return
	case <-s.life.Ended():
		return
	case <-s.ctx.Done():
		return
	}
	frames = s.a.converse(s.log, s, conv, func(frame []byte) reply { return s.receive(conv, frame) })
}

// recv waits for the client's next frame; meanwhile it completes the run
// of a reply voice that finished playing. When the connection is lost it
// runs what the client sent before (lastFrames) and reports the end.
func (s *rtcSession) recv() ([]byte, error) {
	for {
		select {
		case it := <-s.items:
			return it.frame, it.err
		case gen := <-s.replies:
			if gen == s.replyGen && s.conv.sess.RunActive() {
				s.replyStop = nil
				s.conv.complete()
				if !deliver(s.log, s, s.conv.flush()) {
					return nil, errSessionOver
				}
			}
		case <-s.life.Ended():
			if !errors.Is(s.err(), errSessionOver) {
				s.lastFrames(s.conv)
			}
			return nil, s.err()
		case <-s.ctx.Done():
			return nil, s.ctx.Err()
		}
	}
}

func (s *rtcSession) idleOut() {
	if s.life.End(errIdle) {
		s.log.Info("agent: client idle; closing")
	}
}

// lastFrames runs what the client sent before the connection ended, which
// pion still holds for the reader: a client closing right after
// session.end is gone by the time it is read. Replies go nowhere. Bounded
// by rtcpeer.CloseTimeout in case the reader never ends.
func (s *rtcSession) lastFrames(conv *conversation) {
	wait := time.NewTimer(rtcpeer.CloseTimeout)
	defer wait.Stop()
	for !conv.sess.Ended() {
		select {
		case it := <-s.items:
			if it.err != nil {
				return
			}
			s.receive(conv, it.frame)
		case <-wait.C:
			return
		case <-s.ctx.Done():
			return
		}
	}
}

// receive runs one frame through the conversation and adds what WebRTC
// has beyond it: the audio of explicit turns. The turn state is read from
// the session rules before and after, so only messages they accepted
// count.
func (s *rtcSession) receive(conv *conversation, frame []byte) reply {
	before := conv.sess.AudioTurn()
	r := conv.receive(frame)
	after := conv.sess.AudioTurn()
	switch {
	case before == 0 && after != 0:
		s.audio.openTurn(after)
	case before != 0 && after == 0:
		// Commit leaves the session awaiting the run that answers it;
		// cancel and session.end do not.
		committed := conv.sess.Busy() && !conv.sess.Ended()
		if !conv.sess.Ended() {
			// A cancel, like a commit, can overtake the turn's last
			// packets: they belong to the turn, not to what follows it.
			s.audio.settle(s.ctx)
		}
		t := s.audio.closeTurn(committed, s.a.rtc.onAudioTurn)
		if committed {
			conv.emit(protocol.Event{Type: protocol.EventRunStarted})
			conv.text(heard(t.Packets))
			r = merge(r, conv.flush())
			s.startReply()
		}
	}
	if s.replyStop != nil && !conv.sess.RunActive() {
		// response.cancel completed the run: the voice stops with it.
		s.stopReply()
	}
	return r
}

func heard(n int) string {
	if n == 1 {
		return "Heard 1 packet."
	}
	return fmt.Sprintf("Heard %d packets.", n)
}

// merge appends a second reply's envelopes and close decisions to r.
func merge(r, more reply) reply {
	r.envelopes = append(r.envelopes, more.envelopes...)
	if r.closeErr == nil {
		r.closeErr = more.closeErr
	}
	r.ended = r.ended || more.ended
	return r
}

func (s *rtcSession) write(frame []byte) error {
	if err := s.peer.Write(frame); err != nil {
		return fmt.Errorf("agent: %w", err)
	}
	return nil
}

// end records the first reason the session ends; callbacks call it and it
// never blocks.
func (s *rtcSession) end(err error) { s.life.End(err) }

func (s *rtcSession) err() error { return s.life.Err() }

// goOwned starts f on a goroutine teardown waits for, unless teardown
// already began; it reports whether f started.
func (s *rtcSession) goOwned(f func()) bool { return s.life.Go(f) }

// teardown closes the peer connection and waits for pion's goroutines and
// the session's own. A session that ended on its own terms (session.end, a
// rule violation, idle, Close) first has what was sent acknowledged by the
// client, at most min(WriteTimeout, rtcpeer.CloseTimeout); one whose
// connection was lost does not wait. Safe to call more than once.
func (s *rtcSession) teardown() {
	s.teardownOnce.Do(func() {
		s.end(errSessionOver)
		s.stopGrace()
		s.cancel()
		s.peer.Shutdown(s.peer.Channel(), errors.Is(s.err(), errSessionOver), min(s.a.write, rtcpeer.CloseTimeout))
		s.life.Stop()
	})
}
