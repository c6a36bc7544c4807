package audiotest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestRecorder(t *testing.T) {
	r := audiotest.NewRecorder()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Wait(ctx, 40*time.Millisecond) }()
	pcm := make([]int16, audio.FrameSamples)
	pcm[0] = 7
	for i := 0; i < 2; i++ {
		if err := r.Write(pcm); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	pcm[0] = 9 // the recorder kept a copy
	if s := r.Samples(); len(s) != 2*audio.FrameSamples || s[0] != 7 || r.Writes() != 2 || r.Duration() != 40*time.Millisecond {
		t.Fatalf("%d samples, first %d, %d writes, %v", len(s), s[0], r.Writes(), r.Duration())
	}
	go func() { done <- r.Wait(ctx, time.Second) }()
	r.Close()
	if err := <-done; err == nil {
		t.Fatal("Wait for more audio than written returned nil after Close")
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if err := r.Write(pcm); !errors.Is(err, audio.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	if len(r.Samples()) != 2*audio.FrameSamples {
		t.Fatal("Close lost the samples")
	}
}

// The mic's packets, decoded into the fake speaker: the path the WebRTC
// tests take with the agent's reply.
func TestDecodeIntoRecorder(t *testing.T) {
	packets, err := audio.VoicePackets(&audio.VoiceOptions{Duration: 300 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := audio.NewDecoder()
	var sink audio.Sink = audiotest.NewRecorder()
	for _, p := range packets {
		pcm, err := dec.Decode(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		sink.Write(pcm)
	}
	sink.Close()
	r := sink.(*audiotest.Recorder)
	if r.Duration() != 300*time.Millisecond {
		t.Fatalf("recorded %v", r.Duration())
	}
	if f := audio.DominantFrequency(r.Samples(), audio.SampleRate); f < 437 || f > 443 {
		t.Fatalf("dominant %.1f Hz", f)
	}
}

func TestCountingDriver(t *testing.T) {
	d, err := audiotest.TestDriver()
	if err != nil {
		t.Fatal(err)
	}
	cd, err := audiotest.Count(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := cd.Open(); err != nil {
		t.Fatal(err)
	}
	if err := cd.Open(); err == nil {
		t.Fatal("second Open of the same driver succeeded")
	}
	if o, c, open := cd.Counts(); o != 1 || c != 0 || !open {
		t.Fatalf("%d %d %v", o, c, open)
	}
	cd.Close()
	if o, c, open := cd.Counts(); o != 1 || c != 1 || open {
		t.Fatalf("%d %d %v", o, c, open)
	}
}
