package client_test

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pion/datachannel"

	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/protocol"
)

// A data channel message far over the limit is refused with the limit
// itself in the message (it used to say "larger than 131073 bytes", the
// size of the read buffer, not the 131072-byte limit).
func TestWebRTCOversizeNamesTheLimit(t *testing.T) {
	f := newFakeAgent(t)
	f.onOffer = func(sdp string) string {
		return regexp.MustCompile(`a=max-message-size:\d+`).ReplaceAllString(sdp, "a=max-message-size:1073741823")
	}
	f.script = func(ctx context.Context, raw datachannel.ReadWriteCloser) {
		if !establish(ctx, t, raw) {
			return
		}
		big := `{"sequence":2,"event":{"type":"x","pad":"` + strings.Repeat("a", 200_000) + `"}}`
		if _, err := raw.WriteDataChannel([]byte(big), true); err != nil {
			t.Errorf("fake agent: %v", err)
		}
		<-ctx.Done()
	}
	ctx := context.Background()
	ag := f.discover(t)
	tr, err := ag.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s, err := client.Start(ctx, tr, ag.Card, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	select {
	case <-s.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("session did not end")
	}
	var pe *protocol.Error
	if !errors.As(s.Err(), &pe) || pe.Code != protocol.CodeFrameSize {
		t.Fatalf("session ended with %v, want %s", s.Err(), protocol.CodeFrameSize)
	}
	if msg := s.Err().Error(); !strings.Contains(msg, strconv.Itoa(protocol.MaxFrameBytes)+" bytes") || strings.Contains(msg, strconv.Itoa(protocol.MaxFrameBytes+1)) {
		t.Errorf("error %q does not name the %d-byte limit", msg, protocol.MaxFrameBytes)
	}
}
