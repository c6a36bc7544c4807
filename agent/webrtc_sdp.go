package agent

import (
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/internal/sdpcheck"
	"github.com/pion/sdp/v3"
)

// checkOffer holds an offer to the agentcall-webrtc-0.1 profile before pion
// sees it: exactly one audio section, sendrecv, offering opus/48000/2, and
// exactly one data channel section, nothing else. pion would answer much
// else (a recvonly track, PCMU only, a video section) with a session that
// cannot work, so it is refused with a 400 that says why. Messages quote
// nothing from the offer but short, printable tokens.
func checkOffer(raw string) error {
	var d sdp.SessionDescription
	if err := d.UnmarshalString(raw); err != nil {
		return errors.New("the body does not parse as SDP")
	}
	audio, app := 0, 0
	for _, m := range d.MediaDescriptions {
		switch m.MediaName.Media {
		case "audio":
			audio++
			if m.MediaName.Port.Value == 0 {
				return errors.New("the audio section is disabled (port 0)")
			}
			if dir := sdpcheck.Direction(&d, m); dir != "sendrecv" {
				return fmt.Errorf("the audio section is %s; the profile's track is sendrecv", dir)
			}
			if !sdpcheck.Offers(m, "opus/48000/2") {
				return errors.New("the audio section does not offer opus/48000/2, the profile's only codec")
			}
		case "application":
			app++
			if !sdpcheck.IsDataChannel(m) {
				return errors.New("the application section is not a WebRTC data channel (webrtc-datachannel)")
			}
		default:
			return fmt.Errorf("the offer has a %s section; the profile has one audio track and one data channel", printable(m.MediaName.Media, 16))
		}
	}
	if audio != 1 || app != 1 {
		return fmt.Errorf("the offer has %d audio and %d data channel sections; the profile has one of each", audio, app)
	}
	return nil
}

// printable clips s to n printable ASCII characters for a log or an error
// body.
func printable(s string, n int) string {
	b := []byte(s)
	if len(b) > n {
		b = b[:n]
	}
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}
