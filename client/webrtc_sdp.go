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
