package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/internal/sdpcheck"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/webrtc/v4"
)

// errTransportClosed is the cause recorded when the owner closes the
// transport.
var errTransportClosed = errors.New("client: WebRTC transport closed")

// WebRTCTransport is the agentcall-webrtc-0.1 transport: JSON frames on
// the data channel (the same 0.1 frame rules as the WebSocket: UTF-8 text
// only, at most 128 KiB, read through a bounded buffer), the microphone
// on the audio track, the agent's voice decoded into a Sink.
//
// It is the one owner of every pion callback: callbacks only record what
// happened and start goroutines the transport owns. The first of ICE
// disconnection or failure not recovered by an ICE restart (see
// webrtc_restart.go), the peer connection failing or closing, the agent
// breaking the profile, or Close ends the connection; a single
// teardown then stops the microphone, closes the peer connection and waits
// for pion's goroutines and ours, so none outlives Close.
type WebRTCTransport struct {
	log    *slog.Logger
	sid    string
	peer   *rtcpeer.Peer          // the connection's lifecycle, shared with the agent's side
	pc     *webrtc.PeerConnection // peer.PC
	timing *rtcpeer.Timing        // jitter and round trip of the voice
	dc     *webrtc.DataChannel
	track  *rtcpeer.VoiceTrack
	mic    Microphone
	sink   Sink
	newDec func() (Decoder, error)
	cands  *candidateLog // what the policy made of the agent's candidates

	ctx    context.Context // ends with the connection; capture runs under it
	cancel context.CancelFunc

	items    chan []byte   // frames from the reader, in order
	recvDone chan struct{} // closed after the reader's last item; recvErr says why
	opened   chan struct{} // closed once the channel is open and detached
	closing  chan struct{} // closed by Close: nobody will Recv any more
	life     *rtcpeer.Life // peer.Life: why the connection ended; the goroutines Close waits for

	mu         sync.Mutex // orders the channel's opening against teardown
	recvErr    error
	readerOn   bool // the frame reader was started
	remoteSeen bool // the agent's track arrived

	setup time.Duration // the offer's creation to the channel's opening

	// restart is the ICE restart machinery, armed once the channel is open
	// (see webrtc_restart.go).
	restart struct {
		window time.Duration
		fp     string // the agent's DTLS fingerprint, from its first answer
		post   func(context.Context, string) (string, error)
		route  func() error
		up     chan struct{} // a pair works (again)
		active atomic.Bool   // a recovery is running
	}

	onReply  func(time.Duration)
	released atomic.Int64 // UnixNano of the last release awaiting its reply's audio, 0 if none

	closeOnce sync.Once
	// brief: Close was given a protocol error; see faultCloseTimeout.
	brief atomic.Bool
	stats struct {
		sent, received, lost, late, decodeErrors, played, recovered, concealed, restarts, withFEC atomic.Int64
	}
}

var _ Transport = (*WebRTCTransport)(nil)

// faultCloseTimeout bounds the close of a connection whose agent broke the
// contract or a budget: the wait for session.end to be acknowledged, long
// enough across a slow network. The agent's own channel close is not waited
// for: an agent that floods queues it behind the flood, and waiting would
// only let it keep the kiosk busy reading.
const faultCloseTimeout = 100 * time.Millisecond

// newWebRTCTransport creates the peer connection with the profile's track
// and channel and registers every callback.
func newWebRTCTransport(api *webrtc.API, o *WebRTCOptions, cands *candidateLog, timing *rtcpeer.Timing) (*WebRTCTransport, error) {
	cfg := iceConfig(o)
	log := o.Logger.With("session", o.SessionID)
	peer, err := rtcpeer.NewPeer(api, cfg, "client", log, func(what string) error {
		return fmt.Errorf("%w (%s)", ErrConnectionLost, what)
	})
	if err != nil {
		return nil, fmt.Errorf("client: webrtc: %w", err)
	}
	pc := peer.PC
	t := &WebRTCTransport{
		log: log, sid: o.SessionID, peer: peer, pc: pc, mic: o.Mic, sink: o.Sink, newDec: o.NewDecoder, cands: cands, timing: timing, onReply: o.OnReplyAudio,
		items: make(chan []byte), recvDone: make(chan struct{}), opened: make(chan struct{}),
		closing: make(chan struct{}), life: peer.Life,
	}
	t.ctx, t.cancel = context.WithCancel(context.Background())
	t.life.Go(t.teardown)
	fail := func(err error) (*WebRTCTransport, error) {
		t.Close(nil)
		return nil, fmt.Errorf("client: webrtc: %w", err)
	}
	if t.track, err = rtcpeer.NewVoiceTrack("audio", "acbridge"); err != nil {
		return fail(err)
	}
	tr, err := pc.AddTransceiverFromTrack(t.track, webrtc.RTPTransceiverInit{Direction: webrtc.RTPTransceiverDirectionSendrecv})
	if err != nil {
		return fail(err)
	}
	t.goOwned(func() { rtcpeer.DrainRTCP(tr.Sender()) })
	ordered, proto := true, protocol.DataChannelProto
	if t.dc, err = pc.CreateDataChannel(protocol.DataChannelLabel, &webrtc.DataChannelInit{Ordered: &ordered, Protocol: &proto}); err != nil {
		return fail(err)
	}
	pc.OnDataChannel(func(dc *webrtc.DataChannel) {
		// The profile has one channel, the one the client opens: a channel
		// the agent opens (any label or options) is outside it.
		t.end(&incompatibleError{fmt.Errorf("the agent opened a data channel %q; %s carries events only on the %s channel the client opens",
			clipASCII(dc.Label(), 64), protocol.WebRTCProfile, protocol.DataChannelLabel)})
	})
	pc.OnTrack(t.onTrack)
	t.dc.OnOpen(t.onOpen)
	t.dc.OnClose(func() { t.end(fmt.Errorf("%w (data channel closed)", ErrConnectionLost)) })
	return t, nil
}

// connect runs offer/answer through post and waits for the channel.
func (t *WebRTCTransport) connect(ctx, outer context.Context, post func(context.Context, string) (string, error)) error {
	if err := t.offer(ctx, nil); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	answer, err := post(ctx, t.pc.LocalDescription().SDP)
	if err != nil {
		return err
	}
	if err := checkAnswer(answer); err != nil {
		return &incompatibleError{err}
	}
	answer = sdpcheck.ForPion(answer, protocol.MaxFrameBytes)
	if err := t.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		return &incompatibleError{fmt.Errorf("the SDP answer was not accepted: %w", err)}
	}
	if err := t.checkNegotiated(); err != nil {
		return &incompatibleError{err}
	}
	if err := t.waitOpen(ctx, outer, t.cands.checkAnswer(answer) == 0); err != nil {
		return err
	}
	if t.mic != nil {
		// Packets left from an earlier session are not this one's audio.
		t.mic.Discard()
		t.goOwned(t.pumpMic)
	}
	t.log.Debug("client: WebRTC transport open", "remote", t.remoteCandidate())
	return nil
}

// offer sets a new local offer and waits until it carries every
// candidate: the profile's single POST has no trickle ICE.
func (t *WebRTCTransport) offer(ctx context.Context, o *webrtc.OfferOptions) error {
	offer, err := t.pc.CreateOffer(o)
	if err != nil {
		return fmt.Errorf("webrtc offer: %w", err)
	}
	gathered := webrtc.GatheringCompletePromise(t.pc)
	if err := t.pc.SetLocalDescription(offer); err != nil {
		return fmt.Errorf("webrtc offer: %w", err)
	}
	select {
	case <-gathered:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("gathering ICE candidates: %w", ctx.Err())
	}
}

// remoteCandidate is the agent's side of the selected ICE pair, for the
// log ("" if unknown): which of its addresses the policy let through.
func (t *WebRTCTransport) remoteCandidate() string {
	sctp := t.pc.SCTP()
	if sctp == nil {
		return ""
	}
	pair, err := sctp.Transport().ICETransport().GetSelectedCandidatePair()
	if err != nil || pair == nil || pair.Remote == nil {
		return ""
	}
	return net.JoinHostPort(pair.Remote.Address, strconv.Itoa(int(pair.Remote.Port))) + " (" + pair.Remote.Typ.String() + ")"
}

// waitOpen waits for the data channel. When the policy refused every
// candidate of the answer (noneAllowed), only a peer-reflexive address
// learnt from the agent's checks can still connect: if none the policy
// allows appears within prflxGrace, the attempt fails at once, naming the
// refused candidates, instead of at the policy's total timeout. At that
// timeout, see timedOut.
func (t *WebRTCTransport) waitOpen(ctx, outer context.Context, noneAllowed bool) error {
	var grace <-chan time.Time
	if noneAllowed {
		timer := time.NewTimer(prflxGrace)
		defer timer.Stop()
		grace = timer.C
	}
	for {
		select {
		case <-t.opened:
			return nil
		case <-t.life.Ended():
			return t.err()
		case <-grace:
			if !t.cands.anyAccepted() {
				return t.cands.allRefused()
			}
			grace = nil
		case <-ctx.Done():
			nctx, cancel, err := t.timedOut(ctx, outer)
			if err != nil {
				return err
			}
			defer cancel()
			ctx, outer = nctx, nctx
		}
	}
}

// checkNegotiated confirms what pion made of the answer: the sender's
// codec must be Opus with the profile's clock rate.
func (t *WebRTCTransport) checkNegotiated() error {
	for _, tr := range t.pc.GetTransceivers() {
		if tr.Sender() == nil {
			continue
		}
		cs := tr.Sender().GetParameters().Codecs
		if len(cs) == 0 || !strings.EqualFold(cs[0].MimeType, webrtc.MimeTypeOpus) || cs[0].ClockRate != 48000 {
			return errors.New("no Opus 48 kHz codec was negotiated for the audio track")
		}
	}
	return nil
}

// onOpen detaches the channel, so reads go through our bounded buffer, and
// starts the frame reader.
func (t *WebRTCTransport) onOpen() {
	ch, err := rtcpeer.Detach(t.dc)
	if err != nil {
		t.end(fmt.Errorf("client: webrtc data channel: %w", err))
		return
	}
	t.mu.Lock()
	// teardown decides under t.mu whether the reader runs; if the
	// connection ended already, it closes the peer connection, and the
	// channel with it.
	started := t.life.Err() == nil && t.life.Go(func() { t.readFrames(ch) })
	if started {
		t.peer.SetChannel(ch)
		t.readerOn = true
	}
	t.mu.Unlock()
	if started {
		close(t.opened)
	}
}

// readFrames hands each message to Recv, applying the 0.1 frame rules. It
// stops at the first violation: the session then fails and closes. After
// Close it goes on reading, dropping what comes, until the agent closes its
// side of the channel: that is what Close waits for.
func (t *WebRTCTransport) readFrames(ch *rtcpeer.Channel) {
	var err error
	defer func() {
		t.mu.Lock()
		t.recvErr = err
		t.mu.Unlock()
		close(t.recvDone)
	}()
	ch.ReadFrames(fmt.Sprintf("a data channel message is larger than %d bytes", protocol.MaxFrameBytes), func(frame []byte, rerr error) bool {
		switch {
		case rtcpeer.IsFrameError(rerr):
			err = rerr
			return false
		case rerr != nil:
			err = t.lost(rerr)
			return false
		}
		select {
		case t.items <- frame:
			return true
		case <-t.closing:
			err = errTransportClosed
			return false
		}
	})
}

// lost names why a read failed: the recorded cause if the connection
// ended, else the channel itself went away.
func (t *WebRTCTransport) lost(rerr error) error {
	if err := t.err(); err != nil {
		return err
	}
	err := fmt.Errorf("%w (data channel: %v)", ErrConnectionLost, rerr)
	t.end(err)
	return err
}

// Send writes one text frame to the data channel.
func (t *WebRTCTransport) Send(ctx context.Context, frame []byte) error {
	if err := protocol.CheckFrame(frame, false); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.err(); err != nil {
		return err
	}
	if err := t.peer.Write(frame); err != nil {
		return fmt.Errorf("client: %w", err)
	}
	return nil
}

// Recv returns the next frame. After the connection ended it returns why:
// a *protocol.Error for a broken frame rule, an error wrapping
// ErrConnectionLost when the connection went away.
func (t *WebRTCTransport) Recv(ctx context.Context) ([]byte, error) {
	select {
	case f := <-t.items:
		return f, nil
	case <-t.recvDone:
		t.mu.Lock()
		defer t.mu.Unlock()
		return nil, t.recvErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the connection and waits until every goroutine of the
// transport and of its peer connection has returned. While the agent is
// reachable, what was sent last (session.end) is delivered first: Close
// waits, at most rtcpeer.CloseTimeout, for the agent to acknowledge it and
// to close its side of the channel (see rtcpeer.Close). A data channel has
// no close reason, so cause is only logged. Safe to call more than once.
func (t *WebRTCTransport) Close(cause error) error {
	t.closeOnce.Do(func() {
		if codes := protocol.Codes(cause); len(codes) > 0 {
			t.log.Info("client: closing the WebRTC transport after a protocol error", "code", codes[0])
			t.brief.Store(true)
		}
		t.end(errTransportClosed)
		close(t.closing)
		t.life.Stop()
	})
	return nil
}

// end records the first reason the connection ends and starts teardown.
// Callbacks call it; it never blocks.
func (t *WebRTCTransport) end(err error) { t.life.End(err) }

// teardown is the single place the connection is taken down, whatever
// ended it.
func (t *WebRTCTransport) teardown() {
	<-t.life.Ended()
	t.cancel()
	if t.mic != nil {
		// The microphone is open only while the session has audio.
		_ = t.mic.Stop()
		t.mic.Discard()
	}
	t.mu.Lock()
	ch := t.peer.Channel()
	t.mu.Unlock()
	// A lost agent acknowledges nothing: only a reachable one is waited
	// for, so that session.end, written last, reaches it.
	graceful := !errors.Is(t.err(), ErrConnectionLost)
	if graceful && ch != nil && t.brief.Load() {
		// session.end acknowledged, and no wait for the agent's own close.
		ctx, cancel := context.WithTimeout(context.Background(), faultCloseTimeout)
		_ = ch.Drain(ctx)
		cancel()
		graceful = false
	}
	t.peer.Shutdown(ch, graceful, rtcpeer.CloseTimeout)
	t.mu.Lock()
	if !t.readerOn {
		// Recv must not wait for a reader that never started.
		t.readerOn, t.recvErr = true, t.err()
		close(t.recvDone)
	}
	t.mu.Unlock()
	t.log.Debug("client: WebRTC transport closed", "packets_sent", t.stats.sent.Load(), "packets_received", t.stats.received.Load())
}

// goOwned starts f as a goroutine Close waits for, unless Close already
// began.
func (t *WebRTCTransport) goOwned(f func()) bool { return t.life.Go(f) }

// err is why the connection ended, or nil.
func (t *WebRTCTransport) err() error { return t.life.Err() }

// Done is closed when the connection has ended; Err says why.
func (t *WebRTCTransport) Done() <-chan struct{} { return t.life.Ended() }

// Err is why the connection ended (nil while it is up).
func (t *WebRTCTransport) Err() error { return t.err() }

// SessionID is the AgentCall-Session-ID sent with the offer.
func (t *WebRTCTransport) SessionID() string { return t.sid }
