package client

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/sdp/v3"
)

// rfc8841DefaultMaxMessage is the max-message-size an SDP section without
// the attribute implies (RFC 8841 §6.1).
const rfc8841DefaultMaxMessage = 65536

// checkAnswer holds an SDP answer to the agentcall-webrtc-0.1 profile
// before pion sees it: exactly one accepted audio section, sendrecv, whose
// chosen codec (the first format) is opus/48000/2; exactly one accepted
// data channel section able to carry a 128 KiB frame; nothing else
// accepted. pion would quietly accept much of this (a recvonly answer, a
// different codec, a rejected channel) and leave a session that cannot
// work, so it is refused up front as an incompatibility.
func checkAnswer(raw string) error {
	var d sdp.SessionDescription
	if err := d.UnmarshalString(raw); err != nil {
		return errors.New("the SDP answer does not parse as SDP")
	}
	audio, app := 0, 0
	for _, m := range d.MediaDescriptions {
		accepted := m.MediaName.Port.Value != 0
		switch m.MediaName.Media {
		case "audio":
			audio++
			if !accepted {
				return errors.New("the agent rejected the audio track; the profile needs one sendrecv Opus track")
			}
			if dir := direction(&d, m); dir != "sendrecv" {
				return fmt.Errorf("the agent answered the audio track %s; the profile needs sendrecv", dir)
			}
			if c := firstCodec(m); !strings.EqualFold(c, "opus/48000/2") {
				return fmt.Errorf("the agent chose audio codec %q; the profile needs opus/48000/2", clipASCII(c, 32))
			}
		case "application":
			app++
			if !accepted || !isDataChannel(m) {
				return errors.New("the agent rejected the data channel; the profile carries events on agentcall.events")
			}
			if n := maxMessageSize(m); n != 0 && n < protocol.MaxFrameBytes {
				return fmt.Errorf("the agent's data channel takes messages up to %d bytes; 0.1 frames may be %d bytes", n, protocol.MaxFrameBytes)
			}
		default:
			if accepted {
				return fmt.Errorf("the agent accepted a %s section; the profile has one audio track and one data channel", clipASCII(m.MediaName.Media, 16))
			}
		}
	}
	if audio != 1 || app != 1 {
		return fmt.Errorf("the SDP answer has %d audio and %d data channel sections; the profile has one of each", audio, app)
	}
	return nil
}

// direction is the section's direction attribute, else the session's,
// else sendrecv (RFC 8866 §6.7).
func direction(d *sdp.SessionDescription, m *sdp.MediaDescription) string {
	for _, attrs := range [][]sdp.Attribute{m.Attributes, d.Attributes} {
		for _, a := range attrs {
			switch a.Key {
			case "sendrecv", "sendonly", "recvonly", "inactive":
				return a.Key
			}
		}
	}
	return "sendrecv"
}

// firstCodec returns the rtpmap encoding ("opus/48000/2") of the section's
// first format, the one the answerer will use.
func firstCodec(m *sdp.MediaDescription) string {
	if len(m.MediaName.Formats) == 0 {
		return ""
	}
	pt := m.MediaName.Formats[0]
	for _, a := range m.Attributes {
		if a.Key != "rtpmap" {
			continue
		}
		if f, enc, ok := strings.Cut(a.Value, " "); ok && f == pt {
			return strings.TrimSpace(enc)
		}
	}
	return "payload type " + pt + " without rtpmap"
}

// maxMessageSize is the section's max-message-size; 0 means unlimited.
func maxMessageSize(m *sdp.MediaDescription) int {
	v, ok := m.Attribute("max-message-size")
	if !ok {
		return rfc8841DefaultMaxMessage
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return rfc8841DefaultMaxMessage
	}
	return int(n)
}

// isDataChannel recognises a data channel section in the RFC 8841 form
// ("UDP/DTLS/SCTP webrtc-datachannel") and in the older one that aiortc
// and early browsers still write ("DTLS/SCTP 5000" with
// "a=sctpmap:5000 webrtc-datachannel ...").
func isDataChannel(m *sdp.MediaDescription) bool {
	if len(m.MediaName.Formats) == 0 {
		return false
	}
	if m.MediaName.Formats[0] == "webrtc-datachannel" {
		return true
	}
	for _, a := range m.Attributes {
		if a.Key == "sctpmap" {
			if f := strings.Fields(a.Value); len(f) >= 2 && f[0] == m.MediaName.Formats[0] && f[1] == "webrtc-datachannel" {
				return true
			}
		}
	}
	return false
}
