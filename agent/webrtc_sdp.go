package agent

import (
	"errors"
	"fmt"
	"strings"

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
			if dir := direction(&d, m); dir != "sendrecv" {
				return fmt.Errorf("the audio section is %s; the profile's track is sendrecv", dir)
			}
			if !offersOpus(m) {
				return errors.New("the audio section does not offer opus/48000/2, the profile's only codec")
			}
		case "application":
			app++
			if !isDataChannel(m) {
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

// offersOpus reports whether one of the section's formats maps to
// opus/48000/2.
func offersOpus(m *sdp.MediaDescription) bool {
	formats := map[string]bool{}
	for _, f := range m.MediaName.Formats {
		formats[f] = true
	}
	for _, a := range m.Attributes {
		if a.Key != "rtpmap" {
			continue
		}
		pt, enc, ok := strings.Cut(a.Value, " ")
		if ok && formats[pt] && strings.EqualFold(strings.TrimSpace(enc), "opus/48000/2") {
			return true
		}
	}
	return false
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
