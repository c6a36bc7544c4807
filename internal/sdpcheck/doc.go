// Package sdpcheck reads the parts of an SDP media section that the
// agentcall-webrtc-0.1 profile (spec "WebSocket and WebRTC") depends on:
// the direction (RFC 8866 §6.7), the rtpmap codecs (RFC 8866 §6.6), the
// data channel form and its max-message-size (RFC 8841 §5, §6).
//
// The client checks answers and the reference agent checks offers with
// different rules and different messages; both read sections the same way,
// so that reading lives here and each side keeps its own policy.
package sdpcheck
