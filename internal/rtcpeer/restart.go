package rtcpeer

import (
	"strings"

	"github.com/pion/sdp/v3"
)

// Fingerprint is the DTLS certificate fingerprint an SDP description
// declares ("sha-256 AB:CD:…"), session level first, else the first media
// section's; "" when there is none or the SDP does not parse. An ICE
// restart keeps the DTLS association, so a re-offer or its answer that
// names another certificate is another peer, not the same one on a new
// path.
func Fingerprint(raw string) string {
	var d sdp.SessionDescription
	if err := d.UnmarshalString(raw); err != nil {
		return ""
	}
	if v, ok := d.Attribute("fingerprint"); ok {
		return strings.ToUpper(strings.TrimSpace(v))
	}
	for _, m := range d.MediaDescriptions {
		if v, ok := m.Attribute("fingerprint"); ok {
			return strings.ToUpper(strings.TrimSpace(v))
		}
	}
	return ""
}
