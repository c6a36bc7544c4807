package agent

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
	"github.com/pion/webrtc/v4/pkg/media"
)

// peerOptions make a hand-built pion client misbehave.
type peerOptions struct {
	label, proto   string // data channel; default the profile's
	unordered      bool
	maxRetransmits *uint16
	codec          *webrtc.RTPCodecCapability // default Opus
	video          bool                       // add a video transceiver
	direction      webrtc.RTPTransceiverDirection
	noChannel      bool
	negotiated     bool // the channel is pre-negotiated (id 0): no DCEP open reaches the agent
	// answer may edit the agent's answer before it is applied (to raise
	// the agent's max-message-size and send an oversize message).
	answer func(string) string
}

// rtcPeer is a WebRTC client built directly on pion, independent of
// package client, talking to a test agent on loopback.
type rtcPeer struct {
	t      testing.TB
	pc     *webrtc.PeerConnection
	track  *webrtc.TrackLocalStaticSample
	raw    datachannel.ReadWriteCloser
	opened chan struct{}
	gone   chan struct{} // the peer connection closed or failed
	heard  chan struct{} // a token after each packet of the agent's voice
	once   sync.Once
	seq    int64
	turn   int64

	mu       sync.Mutex
	received []int16 // the agent's voice, decoded
	packets  int
	wg       sync.WaitGroup
}

func peerAPI(t testing.TB, codec webrtc.RTPCodecCapability) *webrtc.API {
	m := &webrtc.MediaEngine{}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: codec, PayloadType: 111}, webrtc.RTPCodecTypeAudio); err != nil {
		t.Fatal(err)
	}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeVP8, ClockRate: 90000}, PayloadType: 96}, webrtc.RTPCodecTypeVideo); err != nil {
		t.Fatal(err)
	}
	var s webrtc.SettingEngine
	s.DetachDataChannels()
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	s.SetIncludeLoopbackCandidate(true)
	s.SetIPFilter(func(ip net.IP) bool { return ip.IsLoopback() })
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithSettingEngine(s))
}

// newPeer builds the peer connection and its offer, not yet sent.
func newPeer(t testing.TB, o peerOptions) (*rtcPeer, string) {
	t.Helper()
	codec := webrtc.RTPCodecCapability{MimeType: webrtc.MimeTypeOpus, ClockRate: 48000, Channels: 2}
	if o.codec != nil {
		codec = *o.codec
	}
	pc, err := peerAPI(t, codec).NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	p := &rtcPeer{t: t, pc: pc, opened: make(chan struct{}), gone: make(chan struct{}), heard: make(chan struct{}, 1)}
	t.Cleanup(p.close)
	pc.OnConnectionStateChange(func(s webrtc.PeerConnectionState) {
		if s == webrtc.PeerConnectionStateClosed || s == webrtc.PeerConnectionStateFailed || s == webrtc.PeerConnectionStateDisconnected {
			p.once.Do(func() { close(p.gone) })
		}
	})
	pc.OnTrack(func(tr *webrtc.TrackRemote, _ *webrtc.RTPReceiver) {
		p.wg.Add(1)
		go p.listen(tr)
	})
	p.track, _ = webrtc.NewTrackLocalStaticSample(codec, "audio", "peer")
	dir := o.direction
	if dir == 0 {
		dir = webrtc.RTPTransceiverDirectionSendrecv
	}
	var tr *webrtc.RTPTransceiver
	if dir == webrtc.RTPTransceiverDirectionRecvonly {
		tr, err = pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio, webrtc.RTPTransceiverInit{Direction: dir})
	} else {
		tr, err = pc.AddTransceiverFromTrack(p.track, webrtc.RTPTransceiverInit{Direction: dir})
	}
	if err != nil {
		t.Fatal(err)
	}
	if sender := tr.Sender(); sender != nil {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			buf := make([]byte, 1500)
			for {
				if _, _, err := sender.Read(buf); err != nil {
					return
				}
			}
		}()
	}
	if o.video {
		if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeVideo); err != nil {
			t.Fatal(err)
		}
	}
	if !o.noChannel {
		label, proto := protocol.DataChannelLabel, protocol.DataChannelProto
		if o.label != "" {
			label = o.label
		}
		if o.proto != "" {
			proto = o.proto
		}
		ordered := !o.unordered
		init := &webrtc.DataChannelInit{Ordered: &ordered, Protocol: &proto, MaxRetransmits: o.maxRetransmits}
		if o.negotiated {
			id := uint16(0)
			init.Negotiated, init.ID = &o.negotiated, &id
		}
		dc, err := pc.CreateDataChannel(label, init)
		if err != nil {
			t.Fatal(err)
		}
		dc.OnOpen(func() {
			raw, err := dc.Detach()
			if err == nil {
				p.raw = raw
				close(p.opened)
			}
		})
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	gathered := webrtc.GatheringCompletePromise(pc)
	if err := pc.SetLocalDescription(offer); err != nil {
		t.Fatal(err)
	}
	<-gathered
	return p, pc.LocalDescription().SDP
}

// postOffer sends an offer the way the profile says and returns the
// response and its body.
func postOffer(t testing.TB, ta *testAgent, offer string, header http.Header) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, ta.srv.URL+AGUIPath, strings.NewReader(offer))
	req.Header.Set("Content-Type", SDPMediaType)
	req.Header.Set("Accept", SDPMediaType)
	req.Header.Set(SessionIDHeader, "peer-1")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// connect runs the whole exchange and waits for the channel to open.
func connect(t testing.TB, ta *testAgent, o peerOptions) *rtcPeer {
	t.Helper()
	p, offer := newPeer(t, o)
	resp, answer := postOffer(t, ta, offer, nil)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Content-Type") != SDPMediaType {
		t.Fatalf("offer answered %s %q: %s", resp.Status, resp.Header.Get("Content-Type"), answer)
	}
	if o.answer != nil {
		answer = o.answer(answer)
	}
	if err := p.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeAnswer, SDP: answer}); err != nil {
		t.Fatal(err)
	}
	if o.noChannel {
		return p
	}
	select {
	case <-p.opened:
	case <-p.gone:
	case <-time.After(ioTimeout):
		t.Fatal("data channel did not open")
	}
	return p
}

func (p *rtcPeer) close() {
	p.pc.GracefulClose()
	p.wg.Wait()
}

// listen decodes the agent's voice.
func (p *rtcPeer) listen(tr *webrtc.TrackRemote) {
	defer p.wg.Done()
	dec, err := audio.NewDecoder()
	if err != nil {
		p.t.Error(err)
		return
	}
	for {
		pkt, _, err := tr.ReadRTP()
		if err != nil {
			return
		}
		pcm, err := dec.Decode(pkt.Payload)
		p.mu.Lock()
		p.packets++
		if err == nil {
			p.received = append(p.received, pcm...)
		}
		p.mu.Unlock()
		select {
		case p.heard <- struct{}{}:
		default:
		}
	}
}

func (p *rtcPeer) voice() (int, []int16) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.packets, append([]int16(nil), p.received...)
}

// waitVoice waits until n packets of the agent's voice arrived, or
// ioTimeout passed.
func (p *rtcPeer) waitVoice(n int) {
	deadline := time.After(ioTimeout)
	for got, _ := p.voice(); got < n; got, _ = p.voice() {
		select {
		case <-p.heard:
		case <-deadline:
			return
		}
	}
}

func (p *rtcPeer) write(b []byte, text bool) {
	p.t.Helper()
	if _, err := p.raw.WriteDataChannel(b, text); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

func (p *rtcPeer) send(m *protocol.ClientMessage) {
	p.t.Helper()
	b, err := protocol.MarshalClientMessage(m)
	if err != nil {
		p.t.Fatal(err)
	}
	p.write(b, true)
}

// read returns the next message, or an error once the channel is gone.
func (p *rtcPeer) read() ([]byte, error) {
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() {
		buf := make([]byte, protocol.MaxFrameBytes)
		n, isString, err := p.raw.ReadDataChannel(buf)
		if err == nil && !isString {
			p.t.Error("agent sent a binary message")
		}
		ch <- res{buf[:n], err}
	}()
	select {
	case r := <-ch:
		return r.b, r.err
	case <-time.After(ioTimeout):
		p.t.Fatal("no message from the agent")
		return nil, nil
	}
}

func (p *rtcPeer) expect(types ...string) []protocol.Envelope {
	p.t.Helper()
	var out []protocol.Envelope
	for _, typ := range types {
		b, err := p.read()
		if err != nil {
			p.t.Fatalf("reading %s after sequence %d: %v", typ, p.seq, err)
		}
		env, err := protocol.ParseEnvelope(b)
		if err != nil {
			p.t.Fatalf("invalid envelope: %v", err)
		}
		if env.Sequence != p.seq+1 || env.Event.Type != typ {
			p.t.Fatalf("got #%d %s %+v, want #%d %s", env.Sequence, env.Event.Type, env.Event, p.seq+1, typ)
		}
		p.seq = env.Sequence
		out = append(out, *env)
	}
	return out
}

// expectGone waits until the agent closed the channel.
func (p *rtcPeer) expectGone() {
	p.t.Helper()
	if b, err := p.read(); err == nil {
		p.t.Fatalf("want the channel closed, got %s", b)
	}
}

func (p *rtcPeer) start(explicit bool) {
	p.t.Helper()
	m := &protocol.ClientMessage{Type: protocol.TypeSessionStart, SessionID: "peer-1"}
	if explicit {
		m.ClientCapabilities = &protocol.ClientCapabilities{AudioTurnControl: &protocol.AudioTurnControl{Mode: "explicit"}}
	}
	p.send(m)
	p.expect(protocol.EventSessionEstablished)
}

// speak writes packets to the track in real time.
func (p *rtcPeer) speak(ctx context.Context, packets []audio.Packet) {
	tick := time.NewTicker(audio.FrameDuration)
	defer tick.Stop()
	for _, pk := range packets {
		if err := p.track.WriteSample(media.Sample{Data: pk.Data, Duration: pk.Duration}); err != nil {
			p.t.Errorf("write sample: %v", err)
			return
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}
