package sdpcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/pion/sdp/v3"
)

// DefaultMaxMessageSize is the max-message-size a data channel section
// without the attribute implies (RFC 8841 §6.1).
const DefaultMaxMessageSize = 65536

// Direction is the section's direction attribute, else the session's,
// else sendrecv (RFC 8866 §6.7).
func Direction(d *sdp.SessionDescription, m *sdp.MediaDescription) string {
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

// Offers reports whether one of the section's formats maps to the rtpmap
// encoding enc ("opus/48000/2"), compared without case: an offer lists
// every codec it would take, in any order.
func Offers(m *sdp.MediaDescription, enc string) bool {
	formats := map[string]bool{}
	for _, f := range m.MediaName.Formats {
		formats[f] = true
	}
	for _, a := range m.Attributes {
		if a.Key != "rtpmap" {
			continue
		}
		pt, e, ok := strings.Cut(a.Value, " ")
		if ok && formats[pt] && strings.EqualFold(strings.TrimSpace(e), enc) {
			return true
		}
	}
	return false
}

// FirstCodec returns the rtpmap encoding ("opus/48000/2") of the section's
// first format, the one an answerer will use, or a description of what is
// missing for an error message.
func FirstCodec(m *sdp.MediaDescription) string {
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

// MaxMessageSize is the section's max-message-size; 0 means unlimited. An
// absent or unreadable attribute counts as the RFC 8841 default, since
// that is what the peer's stack will assume too.
func MaxMessageSize(m *sdp.MediaDescription) int {
	v, ok := m.Attribute("max-message-size")
	if !ok {
		return DefaultMaxMessageSize
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return DefaultMaxMessageSize
	}
	return int(n)
}

// MaxMessageSizeSource says where MaxMessageSize's figure comes from, in
// SDP terms, so that a refusal names the line the peer must change: the
// attribute as written, or its absence (RFC 8841 §6.1's default). The
// peer's own value is never echoed beyond a number.
func MaxMessageSizeSource(m *sdp.MediaDescription) string {
	v, ok := m.Attribute("max-message-size")
	if !ok {
		return fmt.Sprintf("no a=max-message-size, which means %d (RFC 8841 §6.1)", DefaultMaxMessageSize)
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 32)
	if err != nil {
		return fmt.Sprintf("an a=max-message-size that is not a number, taken as %d", DefaultMaxMessageSize)
	}
	return fmt.Sprintf("a=max-message-size:%d", n)
}

var maxMessageSizeLine = regexp.MustCompile(`(?m)^a=max-message-size:[ \t]*(\d+)[ \t]*(\r?)$`)

// ForPion restates the max-message-size of a description about to be
// handed to pion the way pion reads it: 0, which means no limit (RFC 8841
// §6.1), becomes n, the largest message this side ever sends, since pion
// reads 0 as "unset" and then refuses to send over 65535 bytes; spaces
// around the number, which MaxMessageSize allows and pion does not, go.
func ForPion(raw string, n int) string {
	return maxMessageSizeLine.ReplaceAllStringFunc(raw, func(line string) string {
		m := maxMessageSizeLine.FindStringSubmatch(line)
		v, err := strconv.ParseUint(m[1], 10, 32)
		switch {
		case err != nil:
			return line
		case v == 0:
			v = uint64(n)
		}
		return "a=max-message-size:" + strconv.FormatUint(v, 10) + m[2]
	})
}

// IsDataChannel recognises a data channel section in the RFC 8841 form
// ("UDP/DTLS/SCTP webrtc-datachannel") and in the older one that aiortc
// and early browsers still write ("DTLS/SCTP 5000" with
// "a=sctpmap:5000 webrtc-datachannel ...").
func IsDataChannel(m *sdp.MediaDescription) bool {
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
