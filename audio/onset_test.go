package audio_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// burst is quiet, then a 1004 Hz tone at -12 dBFS, each lasting the given
// time.
func burst(quiet, tone time.Duration) []int16 {
	pcm := make([]int16, int(quiet*audio.SampleRate/time.Second))
	for i := range int(tone * audio.SampleRate / time.Second) {
		pcm = append(pcm, int16(0.25*math.MaxInt16*math.Sin(2*math.Pi*1004*float64(i)/audio.SampleRate)))
	}
	return pcm
}

func TestOnsets(t *testing.T) {
	var pcm []int16
	for range 3 {
		pcm = append(pcm, burst(300*time.Millisecond, 200*time.Millisecond)...)
	}
	// A dip shorter than OnsetQuiet is no new onset.
	pcm = append(pcm, burst(100*time.Millisecond, 200*time.Millisecond)...)
	got := audio.Onsets(pcm)
	if len(got) != 3 {
		t.Fatalf("onsets at %v; want 3", got)
	}
	for i, at := range got {
		// The tone's first samples are below OnsetLevel: its sine reaches
		// a quarter of its peak after 1/24 of a cycle (41 µs).
		want := time.Duration(i)*500*time.Millisecond + 300*time.Millisecond
		if d := at - want; d < 0 || d > 100*time.Microsecond {
			t.Errorf("onset %d at %v; want %v (+ up to 0.1 ms)", i, at, want)
		}
	}
}

// The Monitor sees what the device is handed, when: an onset written to
// the speaker comes out after its Write, and no later than the playout
// margin and a few device periods after it.
func TestSpeakerMonitorTimesPlayout(t *testing.T) {
	ear := audio.NewOnsetDetector()
	s, err := audio.OpenSpeaker(&audio.SpeakerOptions{Backend: "null", Monitor: ear.Listen})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pcm := burst(40*time.Millisecond, 200*time.Millisecond)
	wrote := time.Now()
	if err := s.Write(pcm); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	// Drain returns once the last samples are handed over, before the
	// Monitor sees them: Close waits for the device thread.
	s.Close()
	on := ear.Take()
	if len(on) != 1 {
		t.Fatalf("onsets played: %v; want 1", on)
	}
	if d := on[0].Sub(wrote); d < 40*time.Millisecond || d > 5*time.Second {
		t.Errorf("the onset played %v after it was written; want at least its 40 ms offset", d)
	}
	t.Logf("onset written 40 ms into the stretch played %v after the Write", on[0].Sub(wrote))
}
