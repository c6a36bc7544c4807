package agent

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	audiowire "github.com/agentcall/acbridge/audio/wire"
	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4/pkg/media"
)

// Audio turn bounds.
const (
	// settleQuiet and settleMax bound the wait for a turn's trailing
	// packets after its commit: RTP and the data channel are separate
	// paths, so the commit can overtake the last packets in the agent. A
	// client that stops sending (as acbridge does) ends the wait after
	// settleQuiet; one that keeps sending silence (browsers, aiortc) has
	// settleMax of it counted too.
	settleQuiet = 40 * time.Millisecond
	settleMax   = 120 * time.Millisecond
	// maxTurnAnalysis is how much of a turn's audio is kept to measure its
	// level and pitch; later packets are counted only.
	maxTurnAnalysis = 10 * time.Second
)

// AudioTurn is what arrived during one explicit audio turn: counts and
// levels, never the audio.
type AudioTurn struct {
	Turn      int64
	Committed bool // false: cancelled, or cut by the end of the session
	Packets   int  // Opus packets received inside the turn
	// Bytes of their RTP payloads: in a silence, with the client's DTX,
	// 1 or 2 per packet.
	Bytes int
	// Before: packets that arrived after the previous turn closed and
	// before this one opened, counted nowhere else: on a lossy link the
	// data channel's turn start, held up by a retransmission, is
	// overtaken by the turn's first packets.
	Before       int
	Lost         int // gaps in their RTP sequence numbers
	DecodeErrors int // packets libopus refused
	// WithFEC of the packets carry an in-band FEC copy of the frame
	// before them (audiowire.HasLBRR); Recovered lost frames were decoded from
	// such a copy, Concealed ones extrapolated.
	WithFEC   int
	Recovered int
	Concealed int
	// Late of the packets filled a gap held open for them: sent again
	// after a NACK (or overtaken on the way). Lost counts the gaps given up.
	Late int
	// Jitter of the client's RTP and the round trip (RTCP), as the turn
	// closed.
	Jitter, RTT time.Duration
	// Levels of the decoded audio (its first maxTurnAnalysis).
	Levels audio.Levels
	// Onsets are where sound started after a silence in the decoded
	// audio (audio.OnsetDetector, at most 64), also in packets that came
	// before the turn opened: when each onset's frame came out of the
	// decoder, plus the onset's offset in it, as though played from then.
	// They end a mouth-to-ear delay measured at the agent.
	Onsets []time.Time `json:",omitempty"`
}

// turnAudio counts and decodes the client's packets per turn. The RTP
// reader feeds it; run opens and closes turns.
type turnAudio struct {
	log *slog.Logger
	dec *audio.Decoder

	mu      sync.Mutex
	cur     *AudioTurn // the open turn, nil between turns
	pcm     []int16
	played  int       // packets of the open turn decoded
	lastAt  time.Time // last packet of the open turn (or its opening)
	outside int       // packets that arrived between turns
	between int       // of those, since the last turn closed
	voice   *rtcpeer.VoiceReader
	timing  func() (jitter, rtt time.Duration) // rtcpeer.Timing of the session
	onsets  *audio.OnsetDetector
	at      time.Time // when the audio being decoded would play: the decode, then each frame after the one before
}

func newTurnAudio(log *slog.Logger) (*turnAudio, error) {
	dec, err := audio.NewDecoder()
	if err != nil {
		return nil, err
	}
	return &turnAudio{log: log, dec: dec, onsets: audio.NewOnsetDetector()}, nil
}

// arrived counts one RTP packet of the client's track and returns the
// turn it counted in: 0 outside a turn, -1 for a duplicate or a packet
// whose place has passed, which counts nowhere. The voice reader's lock
// is held.
func (ta *turnAudio) arrived(p *rtp.Packet, fresh bool) int64 {
	if !fresh {
		return -1
	}
	ta.mu.Lock()
	defer ta.mu.Unlock()
	if ta.cur == nil {
		ta.outside++
		ta.between++
		return 0
	}
	t := ta.cur
	t.Packets++
	t.Bytes += len(p.Payload)
	ta.lastAt = time.Now()
	if audiowire.HasLBRR(p.Payload) {
		t.WithFEC++
	}
	return t.Turn
}

// play decodes the client's packets in sequence order into the open
// turn's audio, concealing the gaps given up before them. The voice
// reader's lock is held.
func (ta *turnAudio) play(s audiowire.Slot) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	t := ta.cur
	if len(s.Payload) == 0 {
		return
	}
	ta.at = time.Now()
	if t == nil {
		// Decoded and dropped: a turn's first packets, overtaken by its
		// start (AudioTurn.Before), would otherwise leave the decoder
		// without their state, and the turn's first frame would start
		// with a transient (17.5 dB for a clean tone, measured). Their
		// onsets count for the turn they belong to.
		if pcm, err := ta.dec.Decode(s.Payload); err == nil {
			ta.onsets.Listen(pcm, ta.at)
		}
		return
	}
	ta.played++
	if s.Late {
		t.Late++
	}
	// A gap before a turn's first packet is the silence between turns.
	if ta.played > 1 && s.Lost > 0 {
		t.Lost += s.Lost
		if s.Lost <= audiowire.MaxConcealedPackets && !s.AfterPause {
			ta.conceal(t, s.Lost, s.Payload)
		}
	}
	pcm, err := ta.dec.Decode(s.Payload)
	if err != nil {
		t.DecodeErrors++
		return
	}
	ta.keep(pcm)
}

// flush plays what the voice reader holds behind an open gap, before a
// turn closes: a resend that has not come by the commit would be too
// late for it.
func (ta *turnAudio) flush() {
	ta.mu.Lock()
	v := ta.voice
	ta.mu.Unlock()
	if v != nil {
		v.Flush()
	}
}

// conceal fills a gap of lost packets before payload as the kiosk does
// for the agent's voice (audiowire.Conceal). ta.mu is held.
func (ta *turnAudio) conceal(t *AudioTurn, lost int, payload []byte) {
	recovered, concealed := audiowire.Conceal(ta.dec, lost, payload, ta.keep)
	t.Recovered += recovered
	t.Concealed += concealed
}

// keep adds decoded audio to what the turn's levels are measured on,
// and listens for its onsets.
func (ta *turnAudio) keep(pcm []int16) {
	ta.onsets.Listen(pcm, ta.at)
	ta.at = ta.at.Add(time.Duration(len(pcm)) * time.Second / audio.SampleRate)
	if len(ta.pcm) < int(maxTurnAnalysis*audio.SampleRate/time.Second) {
		ta.pcm = append(ta.pcm, pcm...)
	}
}

// openTurn starts counting for turn.
func (ta *turnAudio) openTurn(turn int64) {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	ta.cur = &AudioTurn{Turn: turn, Before: ta.between}
	ta.between = 0
	ta.pcm = ta.pcm[:0]
	ta.played = 0
	ta.lastAt = time.Now()
}

// settle waits until no packet has arrived for settleQuiet and no gap
// is held open for a resend, at most settleMax.
func (ta *turnAudio) settle(ctx context.Context) {
	deadline := time.Now().Add(settleMax)
	for {
		ta.mu.Lock()
		quiet := time.Since(ta.lastAt)
		v := ta.voice
		ta.mu.Unlock()
		wait := settleQuiet - quiet
		if v != nil {
			if at, ok := v.Deadline(); ok {
				wait = max(wait, time.Until(at))
			}
		}
		if wait <= 0 || time.Now().After(deadline) {
			return
		}
		select {
		case <-time.After(min(wait, time.Until(deadline))):
		case <-ctx.Done():
			return
		}
	}
}

// closeTurn ends the open turn, logs it and reports it to report (if not
// nil); without an open turn it returns the zero AudioTurn.
func (ta *turnAudio) closeTurn(committed bool, report func(AudioTurn)) AudioTurn {
	ta.flush()
	ta.mu.Lock()
	cur := ta.cur
	ta.cur = nil
	ta.between = 0
	var lv audio.Levels
	if cur != nil {
		lv = audio.Analyze(ta.pcm)
		ta.pcm = ta.pcm[:0]
	}
	timing := ta.timing
	ta.mu.Unlock()
	if cur == nil {
		return AudioTurn{}
	}
	cur.Committed, cur.Levels = committed, lv
	cur.Onsets = ta.onsets.Take()
	if timing != nil {
		cur.Jitter, cur.RTT = timing()
	}
	ta.log.Info("agent: audio turn closed", "turn", cur.Turn, "committed", committed, "packets", cur.Packets, "lost", cur.Lost, "late", cur.Late, "jitter", cur.Jitter, "rtt", cur.RTT,
		"recovered", cur.Recovered, "concealed", cur.Concealed, "decode_errors", cur.DecodeErrors, "level_dbfs", round1(audio.DBFS(lv.RMS)), "dominant_hz", round1(lv.Dominant))
	if report != nil {
		report(*cur)
	}
	return *cur
}

func (ta *turnAudio) outsideTurns() int {
	ta.mu.Lock()
	defer ta.mu.Unlock()
	return ta.outside
}

func round1(f float64) float64 { return float64(int64(f*10)) / 10 }

// startReply plays the reply voice on the agent's track, paced by each
// packet's duration, and tells run when the last packet is out. Only run's
// goroutine calls it.
func (s *rtcSession) startReply() {
	s.stopReply()
	s.replyGen++
	gen, stop := s.replyGen, make(chan struct{})
	s.replyStop = stop
	s.goOwned(func() {
		tick := time.NewTicker(audio.FrameDuration)
		defer tick.Stop()
		written := 0
		if end := s.a.rtc.replyEnded; end != nil {
			defer func() { end(written) }()
		}
		for i, p := range s.a.rtc.reply {
			if i > 0 {
				select {
				case <-tick.C:
				case <-stop:
					return
				case <-s.ctx.Done():
					return
				}
			}
			at := time.Now()
			if err := s.track.WriteSample(media.Sample{Data: p.Data, Duration: p.Duration}); err != nil {
				s.log.Debug("agent: writing the reply voice", "err", err)
			}
			if on := s.a.rtc.onReply; i == 0 && on != nil {
				on(at)
			}
			written++
		}
		select {
		case s.replies <- gen:
		case <-stop:
		case <-s.ctx.Done():
		}
	})
}

// stopReply stops a reply in progress; only run's goroutine calls it.
func (s *rtcSession) stopReply() {
	if s.replyStop != nil {
		close(s.replyStop)
		s.replyStop = nil
	}
}
