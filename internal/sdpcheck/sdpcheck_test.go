package sdpcheck

import (
	"testing"

	"github.com/pion/sdp/v3"
)

// A session-level direction, an audio section listing Opus second, and a
// data channel in the pre-RFC 8841 sctpmap form that aiortc writes.
const offer = "v=0\r\n" +
	"o=- 1 1 IN IP4 127.0.0.1\r\n" +
	"s=-\r\n" +
	"t=0 0\r\n" +
	"a=recvonly\r\n" +
	"m=audio 9 UDP/TLS/RTP/SAVPF 0 111\r\n" +
	"c=IN IP4 0.0.0.0\r\n" +
	"a=rtpmap:0 PCMU/8000\r\n" +
	"a=rtpmap:111 OPUS/48000/2\r\n" +
	"m=audio 9 UDP/TLS/RTP/SAVPF 8\r\n" +
	"c=IN IP4 0.0.0.0\r\n" +
	"a=sendonly\r\n" +
	"m=application 9 DTLS/SCTP 5000\r\n" +
	"c=IN IP4 0.0.0.0\r\n" +
	"a=sctpmap:5000 webrtc-datachannel 1024\r\n" +
	"a=max-message-size:131072\r\n" +
	"m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n" +
	"c=IN IP4 0.0.0.0\r\n" +
	"m=application 9 DTLS/SCTP 5000\r\n" +
	"c=IN IP4 0.0.0.0\r\n" +
	"a=max-message-size:lots\r\n"

func TestSections(t *testing.T) {
	var d sdp.SessionDescription
	if err := d.UnmarshalString(offer); err != nil {
		t.Fatal(err)
	}
	m := d.MediaDescriptions
	if got := Direction(&d, m[0]); got != "recvonly" {
		t.Errorf("session direction: %q", got)
	}
	if got := Direction(&d, m[1]); got != "sendonly" {
		t.Errorf("section direction: %q", got)
	}
	if got := Direction(&sdp.SessionDescription{}, &sdp.MediaDescription{}); got != "sendrecv" {
		t.Errorf("default direction: %q", got)
	}
	if !Offers(m[0], "opus/48000/2") || Offers(m[1], "opus/48000/2") {
		t.Error("Offers misread the rtpmaps")
	}
	if got := FirstCodec(m[0]); got != "PCMU/8000" {
		t.Errorf("first codec %q", got)
	}
	if got := FirstCodec(m[1]); got != "payload type 8 without rtpmap" {
		t.Errorf("first codec without rtpmap: %q", got)
	}
	if !IsDataChannel(m[2]) || !IsDataChannel(m[3]) || IsDataChannel(m[4]) || IsDataChannel(m[0]) {
		t.Error("IsDataChannel misread a section")
	}
	if MaxMessageSize(m[2]) != 131072 || MaxMessageSize(m[3]) != DefaultMaxMessageSize || MaxMessageSize(m[4]) != DefaultMaxMessageSize {
		t.Error("MaxMessageSize misread a section")
	}
	for i, want := range map[int]string{
		2: "a=max-message-size:131072",
		3: "no a=max-message-size, which means 65536 (RFC 8841 §6.1)",
		4: "an a=max-message-size that is not a number, taken as 65536",
	} {
		if got := MaxMessageSizeSource(m[i]); got != want {
			t.Errorf("section %d: MaxMessageSizeSource %q, want %q", i, got, want)
		}
	}
}

func TestForPion(t *testing.T) {
	in := "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=max-message-size:0\r\na=max-message-size: 00\na=max-message-size:\t262144 \r\n" +
		"a=max-message-size:1073741823\r\na=max-message-size:99999999999\r\na=max-message-size:lots\r\n"
	want := "m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=max-message-size:131072\r\na=max-message-size:131072\na=max-message-size:262144\r\n" +
		"a=max-message-size:1073741823\r\na=max-message-size:99999999999\r\na=max-message-size:lots\r\n"
	if got := ForPion(in, 131072); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
