package rtcpeer

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/internal/sdpcheck"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/sdp/v3"
	"github.com/pion/webrtc/v4"
)

func TestValidSessionID(t *testing.T) {
	for s, want := range map[string]bool{
		"a":                       true,
		strings.Repeat("x", 128):  true,
		strings.Repeat("x", 4000): true,
		"has space":               true,
		"é":                       true,
		"":                        false,
		"tab\t":                   false,
		" lead":                   false,
		"line\nbreak":             false,
		"nul\x00":                 false,
	} {
		if got := ValidSessionID(s); got != want {
			t.Errorf("%q: %v", s, got)
		}
	}
}

// The API offers Opus alone and the 0.1 frame bound as max-message-size,
// and lets the side tune ICE.
func TestNewAPI(t *testing.T) {
	tuned := false
	api, err := NewAPI(APIOptions{Tune: func(*webrtc.SettingEngine) { tuned = true }})
	if err != nil {
		t.Fatal(err)
	}
	if !tuned {
		t.Error("tune was not called")
	}
	pc, err := api.NewPeerConnection(webrtc.Configuration{})
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	if _, err := pc.AddTransceiverFromKind(webrtc.RTPCodecTypeAudio); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.CreateDataChannel(protocol.DataChannelLabel, nil); err != nil {
		t.Fatal(err)
	}
	offer, err := pc.CreateOffer(nil)
	if err != nil {
		t.Fatal(err)
	}
	var d sdp.SessionDescription
	if err := d.UnmarshalString(offer.SDP); err != nil {
		t.Fatal(err)
	}
	for _, m := range d.MediaDescriptions {
		switch m.MediaName.Media {
		case "audio":
			if len(m.MediaName.Formats) != 1 || !strings.EqualFold(sdpcheck.FirstCodec(m), "opus/48000/2") {
				t.Errorf("audio formats %v, first %q", m.MediaName.Formats, sdpcheck.FirstCodec(m))
			}
		case "application":
			if n := sdpcheck.MaxMessageSize(m); n != protocol.MaxFrameBytes {
				t.Errorf("max-message-size %d", n)
			}
		}
	}
}
