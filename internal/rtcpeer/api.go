package rtcpeer

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/ice/v4"
	"github.com/pion/interceptor"
	"github.com/pion/interceptor/pkg/nack"
	"github.com/pion/interceptor/pkg/stats"
	"github.com/pion/webrtc/v4"
	"golang.org/x/net/http/httpguts"
)

// The SDP exchange's names (spec "WebSocket and WebRTC"): the offer is
// POSTed as application/sdp with the session id header, and the answer
// comes back as application/sdp.
const (
	SessionIDHeader = "AgentCall-Session-ID"
	SDPMediaType    = "application/sdp"
)

// OpusPayloadType is the dynamic payload type Opus is registered with (the
// number browsers use; the peer may negotiate another).
const OpusPayloadType = 111

// OpusCodec is the profile's audio codec in SDP terms. RFC 7587 §7 fixes
// the SDP form at opus/48000/2 whatever is sent; stereo=0 and
// sprop-stereo=0 say that this end wants and sends mono, as the profile's
// "channels": 1 asks.
var OpusCodec = webrtc.RTPCodecCapability{
	MimeType:    webrtc.MimeTypeOpus,
	ClockRate:   48000,
	Channels:    2,
	SDPFmtpLine: "minptime=10;useinbandfec=1;stereo=0;sprop-stereo=0",
}

// SCTPRTOMax caps the data channel's retransmission timeout. pion's SCTP
// keeps RFC 4960's 1 s minimum (meant for the open internet of 2007),
// which on a lossy link turns every lost frame of a conversation into a
// second's pause (measured: the 69-step walkthrough took 2.5 s at 5 % loss
// and 9.5 s at 10 % instead of 0.07 s). pion lets only the maximum be set
// (not the minimum, nor RACK's tail-loss probe), and the timeout is the
// smaller of the two: so it is this. pion gives up the SCTP handshake
// after 9 timeouts, so the cap also bounds the round trip a link may have:
// 100 ms halved the walkthrough's median at 10 % loss against 250 ms, but
// under -race on a busy 2-core machine the handshake was given up at 10 %
// loss (T1-init, T1-cookie) and the session ended; 250 ms leaves 2.25 s.
const SCTPRTOMax = 250 * time.Millisecond

// SCTPMinCwnd keeps the data channel's congestion window at four packets
// after a retransmission timeout (pion's default drops it to one): a
// conversation's frames are few and small, and a reply of several events
// should not wait a round trip per packet after a loss.
const SCTPMinCwnd = 4 * 1191 // pion's SCTP MTU over DTLS

// DTLSRetransmit is the DTLS handshake's first retransmission interval
// (pion's default 1 s, doubling): a lost handshake flight on a lossy link
// then costs a tenth of a second of set-up, not a second.
const DTLSRetransmit = 100 * time.Millisecond

// MaxSendBuffered bounds what may wait in a data channel for a peer that
// stopped reading; a send beyond it fails instead of growing memory.
const MaxSendBuffered = 1 << 20

// APIOptions are a side's settings for NewAPI; the zero value is the
// profile's shared setup.
type APIOptions struct {
	// Tune, if not nil, adds the side's own ICE rules (which addresses,
	// which timeouts) to the setting engine.
	Tune func(*webrtc.SettingEngine)
	// NoNACK leaves NACK out of the offer or answer: no retransmission is
	// asked for or given (tests compare against it).
	NoNACK bool
	// Timing, if not nil, is set to read the connection's jitter and
	// round trip.
	Timing *Timing
}

// NACKInterval is how often the receiver asks again for a missing voice
// packet (pion's default 100 ms is for video, whose frames wait for their
// packets; a voice packet is worth asking for only while the receiver's
// hold, VoiceHold, still keeps its place).
const NACKInterval = 20 * time.Millisecond

// nackAsks bounds how often one missing packet is asked for: past
// VoiceHold's bound the receiver has given it up.
const nackAsks = 5

// NewAPI builds a pion API for one connection: Opus as the only codec,
// with NACK for it (RFC 4585 generic NACK: the receiver asks for a
// missing packet, the sender sends it again from a bounded history)
// unless o.NoNACK, RTCP reports, pion's stats interceptor (o.Timing),
// detached data channels so that reads are bounded by our own buffer, our
// advertised max-message-size equal to the 0.1 frame bound, and no mDNS.
//
// The errors name the step and carry no package prefix, so that each side
// wraps them under its own.
func NewAPI(o APIOptions) (*webrtc.API, error) {
	m := &webrtc.MediaEngine{}
	codec := OpusCodec
	if !o.NoNACK {
		codec.RTCPFeedback = []webrtc.RTCPFeedback{{Type: "nack"}}
	}
	if err := m.RegisterCodec(webrtc.RTPCodecParameters{RTPCodecCapability: codec, PayloadType: OpusPayloadType}, webrtc.RTPCodecTypeAudio); err != nil {
		return nil, fmt.Errorf("webrtc codec: %w", err)
	}
	// The stats interceptor comes first: an interceptor sees only the RTCP
	// of those bound after it, and it needs the sender reports (for the
	// round trip) and the NACKs that the others write.
	ir := &interceptor.Registry{}
	si, err := stats.NewInterceptor()
	if err != nil {
		return nil, fmt.Errorf("webrtc stats: %w", err)
	}
	if o.Timing != nil {
		si.OnNewPeerConnection(func(_ string, g stats.Getter) { o.Timing.set(g) })
	}
	ir.Add(si)
	if err := webrtc.ConfigureRTCPReports(ir); err != nil {
		return nil, fmt.Errorf("webrtc interceptors: %w", err)
	}
	if !o.NoNACK {
		// webrtc.ConfigureNack announces NACK for video only; the
		// interceptors themselves follow the codec's feedback, so
		// registering them with Opus's above gives voice NACK.
		gen, err := nack.NewGeneratorInterceptor(nack.GeneratorInterval(NACKInterval), nack.GeneratorMaxNacksPerPacket(nackAsks))
		if err != nil {
			return nil, fmt.Errorf("webrtc nack: %w", err)
		}
		resp, err := nack.NewResponderInterceptor()
		if err != nil {
			return nil, fmt.Errorf("webrtc nack: %w", err)
		}
		ir.Add(resp)
		ir.Add(gen)
	}
	var s webrtc.SettingEngine
	s.DetachDataChannels()
	s.SetSCTPMaxMessageSize(protocol.MaxFrameBytes)
	s.SetSCTPRTOMax(SCTPRTOMax)
	s.SetSCTPMinCwnd(SCTPMinCwnd)
	s.SetDTLSRetransmissionInterval(DTLSRetransmit)
	s.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	// pion waits before nominating a pair whose candidate is not a host
	// one (srflx 0.5 s, prflx 1 s), in case a better pair succeeds
	// meanwhile. Without trickle both candidate lists are complete before
	// the first check, so every direct pair is already being checked: the
	// wait only delays a connection that has no host pair, such as an
	// agent behind a NAT, or a browser whose answer lists only mDNS names
	// (never resolved, see client.candidateLog) or no candidate at all,
	// which then connects through the peer-reflexive address of its own
	// checks (1.0 s → 10 ms on loopback, docs/conformance.md). Relay keeps
	// pion's wait: a direct pair that succeeds meanwhile spares the TURN
	// server. Only the controlling side, the client, nominates; the
	// answering agent is unaffected.
	s.SetHostAcceptanceMinWait(0)
	s.SetSrflxAcceptanceMinWait(0)
	s.SetPrflxAcceptanceMinWait(0)
	if o.Tune != nil {
		o.Tune(&s)
	}
	return webrtc.NewAPI(webrtc.WithMediaEngine(m), webrtc.WithInterceptorRegistry(ir), webrtc.WithSettingEngine(s)), nil
}

// RTCPReader is a sender or receiver whose RTCP can be read.
type RTCPReader interface {
	Read(b []byte) (int, interceptor.Attributes, error)
}

// DrainRTCP reads a sender's or receiver's RTCP until it stops, so that
// the interceptors see it and pion's buffers never fill: the peer's
// receiver reports and NACKs come on the sender, its sender reports (which
// the round trip needs) on the receiver.
func DrainRTCP(s RTCPReader) {
	buf := make([]byte, 1500)
	for {
		if _, _, err := s.Read(buf); err != nil {
			return
		}
	}
}

// ValidSessionID reports whether s can be sent as the AgentCall-Session-ID
// header unchanged. The contract bounds a sessionId by nothing but the frame
// it travels in; a header value has HTTP's own rules (RFC 9110 field-value:
// no controls, and no whitespace at either end, which a receiver strips) and
// the HTTP server's bound on header bytes, and must not be empty (an
// empty header is no header).
func ValidSessionID(s string) bool {
	return s != "" && strings.Trim(s, " \t") == s && httpguts.ValidHeaderFieldValue(s)
}
