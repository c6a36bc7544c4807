package client

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/agentcall/acbridge/audio/wire"
	"github.com/agentcall/acbridge/internal/rtcpeer"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/rtp"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// WebRTCStats count a WebRTC transport's audio since it was dialed.
type WebRTCStats struct {
	PacketsSent     int64 // microphone packets written to the track
	PacketsReceived int64 // RTP packets of the agent's track
	PacketsLost     int64 // gaps in the agent's sequence numbers given up
	// Late of the received packets filled a gap held open for them: sent
	// again after a NACK (or overtaken on the way).
	Late int64
	// Of the lost packets' frames: Recovered through the next packet's
	// in-band FEC copy (where it carries one: SILK copies only frames of
	// active speech), Concealed by the decoder's extrapolation alone.
	Recovered, Concealed int64
	DecodeErrors         int64         // agent packets libopus refused
	Played               time.Duration // decoded audio handed to the Sink
	ICERestarts          int64         // dead paths recovered by an ICE restart
	// PacketsWithFEC of the received ones carry an in-band FEC copy of
	// the frame before them (wire.HasLBRR).
	PacketsWithFEC int64
}

// Stats returns the audio counters.
func (t *WebRTCTransport) Stats() WebRTCStats {
	return WebRTCStats{
		PacketsSent:     t.stats.sent.Load(),
		PacketsReceived: t.stats.received.Load(),
		PacketsLost:     t.stats.lost.Load(),
		Late:            t.stats.late.Load(),
		Recovered:       t.stats.recovered.Load(),
		Concealed:       t.stats.concealed.Load(),
		DecodeErrors:    t.stats.decodeErrors.Load(),
		Played:          time.Duration(t.stats.played.Load()) * time.Second / wire.SampleRate,
		ICERestarts:     t.stats.restarts.Load(),
		PacketsWithFEC:  t.stats.withFEC.Load(),
	}
}

// StartMic opens the microphone; its packets go on the track until
// StopMic, DiscardMic or the end of the connection. The capture run belongs
// to the connection, not to ctx, so a short-lived press handler's context
// does not cut it short. With explicit turns, call it after
// Session.StartAudioTurn (PushToTalk does both); without them, only for an
// engagement a person started (Engagement). Outside a run nothing goes on
// the track.
func (t *WebRTCTransport) StartMic(ctx context.Context) error {
	if t.mic == nil {
		return ErrNoMicrophone
	}
	if err := t.err(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return t.mic.Start(t.ctx)
}

// StopMic closes the microphone and returns once its last packet has been
// written to the track, the point at which a turn may be committed (spec:
// the client stops its microphone before commit). The error says why the
// capture ended early, if it did, or that the connection ended first.
func (t *WebRTCTransport) StopMic(ctx context.Context) error {
	if t.mic == nil {
		return ErrNoMicrophone
	}
	stopErr := t.mic.Stop()
	dctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(t.ctx, cancel)()
	if err := t.mic.Drain(dctx); err != nil {
		if cause := t.err(); cause != nil {
			return cause
		}
		return fmt.Errorf("client: %w", err)
	}
	return stopErr
}

// discardWait bounds DiscardMic's wait for the packet being written.
const discardWait = time.Second

// DiscardMic closes the microphone and drops what it had not yet written,
// for a cancelled turn or engagement. It returns once the packet the track
// was writing, if any, is out, so that nothing of the dropped audio
// follows what the caller sends next (audio.turn.cancel).
func (t *WebRTCTransport) DiscardMic() error {
	if t.mic == nil {
		return ErrNoMicrophone
	}
	err := t.mic.Stop()
	t.mic.Discard()
	dctx, cancel := context.WithTimeout(t.ctx, discardWait)
	defer cancel()
	// Past the bound or the connection's end nothing is written any more
	// either way, so the wait's own error says nothing worth returning.
	_ = t.mic.Drain(dctx)
	return err
}

// pumpMic writes microphone packets to the track for the connection's
// life; it blocks in ReadPacket between runs. The microphone paces it in
// real time, and each sample's Duration advances the RTP timestamp.
func (t *WebRTCTransport) pumpMic() {
	for {
		p, err := t.mic.ReadPacket(t.ctx)
		if err != nil {
			return
		}
		if err := t.track.WriteSample(media.Sample{Data: p.Data, Duration: p.Duration}); err != nil {
			t.log.Debug("client: writing a microphone packet", "err", err)
			continue
		}
		t.stats.sent.Add(1)
	}
}

// onTrack takes the agent's one audio track; anything else breaks the
// profile.
func (t *WebRTCTransport) onTrack(tr *webrtc.TrackRemote, r *webrtc.RTPReceiver) {
	c := tr.Codec()
	if tr.Kind() != webrtc.RTPCodecTypeAudio || !strings.EqualFold(c.MimeType, webrtc.MimeTypeOpus) || c.ClockRate != 48000 {
		t.end(&incompatibleError{fmt.Errorf("the agent sent a %s track in %s/%d; %s has one Opus 48 kHz track", tr.Kind(), clipASCII(c.MimeType, 32), c.ClockRate, protocol.WebRTCProfile)})
		return
	}
	t.mu.Lock()
	second := t.remoteSeen
	t.remoteSeen = true
	t.mu.Unlock()
	if second {
		t.end(&incompatibleError{fmt.Errorf("the agent sent a second track; %s has one", protocol.WebRTCProfile)})
		return
	}
	t.goOwned(func() { rtcpeer.DrainRTCP(r) })
	t.goOwned(func() { t.playTrack(tr) })
}

// playTrack decodes the agent's voice into the Sink in sequence order,
// holding a gap open for a resent packet (rtcpeer.VoiceReader) and
// concealing the gaps given up; without a Sink it only reads, so pion's
// buffers keep draining.
func (t *WebRTCTransport) playTrack(tr *webrtc.TrackRemote) {
	var dec Decoder
	if t.sink != nil {
		var err error
		if dec, err = t.newDec(); err != nil {
			t.log.Warn("client: no Opus decoder; the agent's voice is dropped", "err", err)
			dec = nil // not a typed nil from the factory
		}
	}
	arrived := func(pkt *rtp.Packet, fresh bool) {
		if !fresh {
			return
		}
		t.stats.received.Add(1)
		if wire.HasLBRR(pkt.Payload) {
			t.stats.withFEC.Add(1)
		}
	}
	play := func(s wire.Slot) {
		if s.Late {
			t.stats.late.Add(1)
		}
		if s.Lost > 0 {
			t.stats.lost.Add(int64(s.Lost))
			if dec != nil && s.Lost <= wire.MaxConcealedPackets && !s.AfterPause {
				t.conceal(dec, s.Lost, s.Payload)
			}
		}
		if dec == nil || len(s.Payload) == 0 {
			return
		}
		pcm, err := dec.Decode(s.Payload)
		if err != nil {
			t.stats.decodeErrors.Add(1)
			return
		}
		if !t.play(pcm) {
			dec = nil // the sink is closed: keep reading, stop decoding
		}
	}
	rtcpeer.NewVoiceReader(arrived, play, func() time.Duration { _, rtt := t.timing.Voice(t.pc); return rtt }).Run(tr)
}

// conceal fills a gap of lost packets before payload (wire.Conceal) and
// counts what it recovered and extrapolated.
func (t *WebRTCTransport) conceal(dec Decoder, lost int, payload []byte) {
	recovered, concealed := wire.Conceal(dec, lost, payload, func(pcm []int16) { t.play(pcm) })
	t.stats.recovered.Add(int64(recovered))
	t.stats.concealed.Add(int64(concealed))
}

func (t *WebRTCTransport) play(pcm []int16) bool {
	if err := t.sink.Write(pcm); err != nil {
		t.log.Warn("client: the audio sink refused the agent's voice", "err", err)
		return false
	}
	t.stats.played.Add(int64(len(pcm)))
	if at := t.released.Swap(0); at != 0 && t.onReply != nil {
		t.onReply(time.Since(time.Unix(0, at)))
	}
	return true
}

// markReleased notes a push-to-talk release: the next agent audio played
// answers it.
func (t *WebRTCTransport) markReleased() { t.released.Store(time.Now().UnixNano()) }
