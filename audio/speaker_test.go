package audio_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/internal/testutil/poll"
)

// miniaudio's null backend runs the real playback path (device thread,
// callbacks, format conversion) at real-time pace without a sound card.
func openNullSpeaker(t *testing.T, buffer time.Duration) *audio.Speaker {
	t.Helper()
	s, err := audio.OpenSpeaker(&audio.SpeakerOptions{Backend: "null", Buffer: buffer})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestSpeakerPlays(t *testing.T) {
	s := openNullSpeaker(t, 0)
	pcm, err := audio.Voice(&audio.VoiceOptions{Duration: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// 500 ms through a 300 ms queue: Write has to wait for the device.
	for off := 0; off < len(pcm); off += audio.FrameSamples {
		if err := s.Write(pcm[off : off+audio.FrameSamples]); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Played != len(pcm) {
		t.Fatalf("played %d samples, wrote %d", st.Played, len(pcm))
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Write(pcm[:10]); !errors.Is(err, audio.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
}

func TestSpeakerCloseUnblocksWrite(t *testing.T) {
	s := openNullSpeaker(t, 20*time.Millisecond)
	errc := make(chan error, 1)
	go func() { errc <- s.Write(make([]int16, 10*audio.SampleRate)) }()
	// Close once Write filled the buffer and waits for miniaudio's device
	// thread to drain it (an early Close is ErrClosed too, so this only
	// makes the test sharper).
	if !poll.Parked(5*time.Second, "(*Speaker).Write") {
		t.Fatal("Write did not block on a full buffer")
	}
	s.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, audio.ErrClosed) {
			t.Fatalf("blocked Write got %v, want ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock Write")
	}
}

func TestSpeakerOptions(t *testing.T) {
	for _, o := range []audio.SpeakerOptions{
		{Backend: "oss"},
		{Backend: "null", Buffer: time.Millisecond},
		{Backend: "null", Buffer: time.Hour},
	} {
		if _, err := audio.OpenSpeaker(&o); !errors.Is(err, audio.ErrBadConfig) {
			t.Errorf("%+v: %v, want ErrBadConfig", o, err)
		}
	}
	if _, err := audio.OpenSpeaker(&audio.SpeakerOptions{Backend: "null", Device: "no-such-speaker"}); !errors.Is(err, audio.ErrNoSpeaker) {
		t.Errorf("unknown device: %v, want ErrNoSpeaker", err)
	}
}

// The default output either opens or fails with an error that tells the
// operator what to do; which one depends on the machine's sound card.
func TestSpeakerDefaultDevice(t *testing.T) {
	s, err := audio.OpenSpeaker(nil)
	if err == nil {
		t.Log("default speaker opened")
		s.Close()
		return
	}
	t.Logf("default speaker: %v", err)
	if !errors.Is(err, audio.ErrNoSpeaker) && !errors.Is(err, audio.ErrBusy) && !errors.Is(err, audio.ErrPermission) {
		t.Fatalf("error without an operator fix: %v", err)
	}
}
