package client_test

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/client/clienttest"
	"github.com/agentcall/acbridge/protocol"
	"github.com/pion/datachannel"
)

// withMaxMessageSize sets the answer's max-message-size attribute; "" drops
// it.
func withMaxMessageSize(t *testing.T, value string) func(string) string {
	return func(sdp string) string {
		re := regexp.MustCompile(`a=max-message-size:\d+\r\n`)
		if !re.MatchString(sdp) {
			t.Errorf("the answer has no max-message-size")
		}
		if value == "" {
			return re.ReplaceAllString(sdp, "")
		}
		return re.ReplaceAllString(sdp, "a=max-message-size:"+value+"\r\n")
	}
}

// An agent whose data channel takes less than a 0.1 frame is refused at
// the dial, with the line of its answer that says so and the value it must
// advertise: aiortc's stock 65536, an answer without the attribute (RFC
// 8841's default, the same 65536) and anything else below 128 KiB.
func TestWebRTCSmallMaxMessageSizeRefused(t *testing.T) {
	cases := []struct{ name, value, source string }{
		{"aiortc's stock 65536", "65536", "its SDP answer has a=max-message-size:65536"},
		{"no attribute", "", "its SDP answer has no a=max-message-size, which means 65536 (RFC 8841 §6.1)"},
		{"not a number", "lots", "not a number, taken as 65536"},
		{"just under a frame", "131071", "a=max-message-size:131071"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			f.OnAnswer = withMaxMessageSize(t, c.value)
			_, err := f.Discover(t).Dial(context.Background())
			if !errors.Is(err, client.ErrIncompatible) {
				t.Fatalf("want an incompatibility, got %v", err)
			}
			for _, want := range []string{c.source, "a photo observation is up to 82 KiB", "the agent must advertise a=max-message-size:131072 or more, or 0 for no limit"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("the error does not say %q: %v", want, err)
				}
			}
		})
	}
}

// The refusal's reason holds: text frames within 0.1's bounds pass 64 KiB
// too, so connecting to a 64 KiB agent without the photo modality would
// still break sessions, only later. A photo frame at the image bound
// stays within the "82 KiB" the error names.
func TestFramesBeyond64KiB(t *testing.T) {
	turn, err := protocol.MarshalClientMessage(&protocol.ClientMessage{
		Type: protocol.TypeUserTurn, Turn: 1, Text: strings.Repeat("𝄞", protocol.MaxTextLen),
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := protocol.ParseClientMessage(turn); err != nil {
		t.Fatalf("the user.turn is not valid 0.1: %v", err)
	}
	if len(turn) <= 65536 || len(turn) > protocol.MaxFrameBytes {
		t.Errorf("a user.turn at the text bound is %d bytes; the refusal says it passes 64 KiB", len(turn))
	}
	photo := maxPhotoFrame(t)
	if len(photo) <= 65536 || len(photo) > 82<<10 {
		t.Errorf("a photo frame at the image bound is %d bytes; the refusal says up to 82 KiB", len(photo))
	}
	t.Logf("largest user.turn %d bytes, largest photo observation %d bytes", len(turn), len(photo))
}

// maxPhotoFrame is a user.observation whose image is at the base64 bound,
// with 128-character identifiers (the old bound; neither has one now, but
// acbridge's own observationIds are short, and the interactionId is the
// agent's own, echoed as it came).
func maxPhotoFrame(t *testing.T) []byte {
	t.Helper()
	frame, err := protocol.MarshalClientMessage(&protocol.ClientMessage{
		Type: protocol.TypeUserObservation, Turn: 1, InteractionID: strings.Repeat("i", 128),
		Observation: &protocol.Observation{
			SchemaVersion: "0.1", ObservationID: strings.Repeat("o", 128),
			CapturedAt: "2026-12-01T03:30:00.123456789+00:00", Intent: "identify",
			Image: &protocol.Image{
				MediaType: protocol.MediaTypeJPEG, DataBase64: strings.Repeat("A", 81920), ByteCount: protocol.MaxImageBytes,
				SHA256: strings.Repeat("0", 64), PixelWidth: protocol.MaxImagePixels, PixelHeight: protocol.MaxImagePixels,
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return frame
}

// "a=max-message-size:0" means no limit (RFC 8841 §6.1), but pion reads 0
// as "unset", and a number after a space as nothing, and would then refuse
// to send more than 65535 bytes: the client hands pion the limit in the
// form it reads, and a frame larger than 64 KiB reaches the agent whole.
func TestWebRTCUnlimitedMaxMessageSize(t *testing.T) {
	for _, value := range []string{"0", " 262144"} {
		t.Run(value, func(t *testing.T) {
			f := clienttest.NewRTCFake(t)
			f.OnAnswer = withMaxMessageSize(t, value)
			got := make(chan int, 1)
			f.Script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
				buf := make([]byte, 2*protocol.MaxFrameBytes)
				n, _, err := raw.ReadDataChannel(buf)
				if err != nil {
					t.Errorf("the agent's read: %v", err)
					n = -1
				}
				got <- n
			}
			ctx := context.Background()
			tr, err := f.Discover(t).Dial(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close(nil)
			frame := maxPhotoFrame(t)
			if err := tr.Send(ctx, frame); err != nil {
				t.Fatalf("sending %d bytes to an agent that takes them: %v", len(frame), err)
			}
			select {
			case n := <-got:
				if n != len(frame) {
					t.Fatalf("the agent read %d bytes of %d", n, len(frame))
				}
			case <-time.After(10 * time.Second):
				t.Fatal("the frame did not reach the agent within 10 s")
			}
		})
	}
}
