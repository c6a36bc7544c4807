package client

import (
	"errors"
	"fmt"
	"strings"

	"github.com/agentcall/acbridge/internal/sdpcheck"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/sdp/v3"
)

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
			if dir := sdpcheck.Direction(&d, m); dir != "sendrecv" {
				return fmt.Errorf("the agent answered the audio track %s; the profile needs sendrecv", dir)
			}
			if c := sdpcheck.FirstCodec(m); !strings.EqualFold(c, "opus/48000/2") {
				return fmt.Errorf("the agent chose audio codec %q; the profile needs opus/48000/2", clipASCII(c, 32))
			}
		case "application":
			app++
			if !accepted || !sdpcheck.IsDataChannel(m) {
				return errors.New("the agent rejected the data channel; the profile carries events on agentcall.events")
			}
			if n := sdpcheck.MaxMessageSize(m); n != 0 && n < protocol.MaxFrameBytes {
				return smallMessageSize(n, sdpcheck.MaxMessageSizeSource(m))
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

// smallMessageSize refuses an agent whose data channel takes less than a
// 0.1 frame. acbridge does not connect without photos instead: text
// frames can exceed such a limit too (see the error), so the session
// would still break, only later and in front of a visitor, while a
// refusal at the first dial tells the agent's developer the one setting
// to change (docs/conformance.md, "WebRTC decisions").
func smallMessageSize(n int, source string) error {
	return fmt.Errorf("the agent's data channel takes messages up to %d bytes (its SDP answer has %s), "+
		"but every 0.1 frame may be up to %d bytes: a photo observation is up to 82 KiB, and a user.turn "+
		"of 16,384 characters can pass 64 KiB; the agent must advertise a=max-message-size:%d or more, "+
		"or 0 for no limit (aiortc writes 65536 unless its RTCSctpTransport capabilities are overridden)",
		n, source, protocol.MaxFrameBytes, protocol.MaxFrameBytes)
}
