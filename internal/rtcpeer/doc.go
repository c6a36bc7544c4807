// Package rtcpeer is what the client and the reference agent share of a
// peer connection under the agentcall-webrtc-0.1 profile (spec "WebSocket
// and WebRTC"): the pion API both build (Opus as the only codec with
// RFC 4585 NACK, RTCP reports and stats, detached data channels, the 0.1
// frame bound as max-message-size, no mDNS), the voice track whose RTP
// timestamps follow the clock over silence (VoiceTrack, RFC 3550 §5.1) and
// its in-order reader that holds a gap open for a resend (VoiceReader),
// the jitter and round trip (Timing, RFC 3550 §6.4), the
// AgentCall-Session-ID bound, the 0.1 frame rules applied
// to data channel messages (as internal/wsframe applies them to WebSocket
// frames), the detached channel with its bounded send buffer (Channel), the
// end-of-connection bookkeeping (Life), the hand-over of a dead ICE path to
// the side's recovery ("ICE recovery does not create logical session
// resume": Peer.SetRecovery, Fingerprint) and the one close that delivers
// what was sent last before the SCTP association is aborted (Close).
//
// Who offers and who answers, which ICE candidates are allowed, and what a
// broken rule is called in an error stay with each side.
package rtcpeer
