package audio_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// soundLibs are what a sound-system context loads: alsa-lib (also through
// alsaquiet) and PulseAudio's client library with its dependencies.
var soundLibs = []string{"libasound.so", "libpulse.so", "libsndfile.so"}

// TestNothingLoadedAtStart runs the test binary again with only the probe
// below, so that no other test has opened a context first: importing
// package audio must not load a sound library or connect to a sound server
// (the idle daemon's memory).
func TestNothingLoadedAtStart(t *testing.T) {
	if os.Getenv("ACBRIDGE_AUDIO_MAPS_PROBE") == "1" {
		maps, err := os.ReadFile("/proc/self/maps")
		if err != nil {
			t.Skip(err)
		}
		for _, lib := range soundLibs {
			if strings.Contains(string(maps), "/"+lib) {
				t.Errorf("%s is mapped before any sound device was asked for", lib)
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNothingLoadedAtStart$", "-test.count=1")
	cmd.Env = append(os.Environ(), "ACBRIDGE_AUDIO_MAPS_PROBE=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestHostMicrophoneRun captures from a host device through miniaudio:
// ALSA's "null" PCM, which every alsa-lib has and which records silence.
// Each run opens and releases its own sound-system context.
func TestHostMicrophoneRun(t *testing.T) {
	if _, err := os.Stat("/usr/share/alsa/alsa.conf"); err != nil {
		t.Skip("no alsa-lib configuration: ", err)
	}
	m, err := audio.NewMic(&audio.MicOptions{Device: "null"})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for run := 1; run <= 2; run++ {
		if err := m.Start(ctx); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		for i := 0; i < 3; i++ {
			p, err := m.ReadPacket(ctx)
			if err != nil || len(p.Data) == 0 || p.Duration != audio.FrameDuration {
				t.Fatalf("run %d packet %d: %v %d bytes %v", run, i, err, len(p.Data), p.Duration)
			}
		}
		if err := m.Stop(); err != nil {
			t.Fatalf("run %d stop: %v", run, err)
		}
		if m.Running() {
			t.Fatalf("run %d: still running after Stop", run)
		}
		m.Discard()
	}
}
