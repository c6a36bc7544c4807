package audio_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// ALSA plugin devices stand in for a sound card: an asoundrc in a
// throwaway HOME defines a playback PCM that writes what it is given to a
// file and a capture PCM that reads a file, both over ALSA's null PCM, so
// the Speaker and the Mic run through ALSA itself without a kernel sound
// device. ALSA reads its configuration once per process, so the devices
// are used in a child process (this test binary again) whose HOME is the
// throwaway one.

const asoundrc = `pcm.acbridge_play {
	type file
	slave.pcm "null"
	file "%[1]s/played.raw"
	format "raw"
	hint { show on description "acbridge test speaker" }
}
pcm.acbridge_rec {
	type file
	slave.pcm "null"
	file "/dev/null"
	infile "%[1]s/mic.raw"
	format "raw"
	hint { show on description "acbridge test microphone" }
}
`

// alsaChild runs the test named run in a child with the asoundrc's HOME
// and returns that directory.
func alsaChild(t *testing.T, run string, prepare func(dir string)) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".asoundrc"), fmt.Appendf(nil, asoundrc, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(dir)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+run+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), "HOME="+dir, "ACBRIDGE_ALSA_CHILD="+dir, "PULSE_SERVER=/nonexistent")
	out, err := cmd.CombinedOutput()
	t.Logf("child:\n%s", out)
	if err != nil || !strings.Contains(string(out), "--- PASS: "+run) {
		t.Fatalf("the child failed: %v", err)
	}
	return dir
}

func childDir(t *testing.T) string {
	dir := os.Getenv("ACBRIDGE_ALSA_CHILD")
	if dir == "" {
		t.Skip("runs as the child of the test that sets up the ALSA devices")
	}
	return dir
}

func tone(n int, dbfs float64) []int16 {
	pcm := make([]int16, n)
	a := math.Pow(10, dbfs/20) * math.MaxInt16 * math.Sqrt2
	for i := range pcm {
		pcm[i] = int16(a * math.Sin(2*math.Pi*440*float64(i)/audio.SampleRate))
	}
	return pcm
}

func readRaw(t *testing.T, name string) []int16 {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	pcm := make([]int16, len(b)/2)
	for i := range pcm {
		pcm[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return pcm
}

// The speaker plays at its volume, goes silent while ducked to mute, and
// hands the echo canceller exactly what it played.
func TestSpeakerVolumeAndReferenceThroughALSA(t *testing.T) {
	dir := alsaChild(t, "TestALSAChildSpeaker", nil)
	played := readRaw(t, filepath.Join(dir, "played.raw"))
	// ALSA's null PCM takes audio faster than real time, so the speaker
	// underruns and pads with silence between writes: only the audible
	// samples are compared.
	var audible []int16
	for _, s := range played {
		if s != 0 {
			audible = append(audible, s)
		}
	}
	half := audio.SampleRate / 2
	if len(audible) < half*99/100 {
		t.Fatalf("the file PCM got %d samples of audio, want half a second", len(audible))
	}
	// A -10 dBFS tone at 50 % volume: -16 dBFS.
	if level := audio.LevelDB(audible, 0, half*99/100); math.Abs(level+16) > 1 {
		t.Errorf("played at %.1f dBFS, want -16 (volume 50 %%)", level)
	}
	// Ducked to mute, the second tone fades out within one device period
	// (20 ms), then nothing.
	if more := len(audible) - half; more > 2*audio.FrameSamples {
		t.Errorf("ducked to mute, the speaker played %d more samples of the tone", more)
	}
}

func TestALSAChildSpeaker(t *testing.T) {
	childDir(t)
	p, err := audio.NewProcessor(&audio.EchoOptions{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	vol, err := audio.NewVolume(50, audio.MuteDB)
	if err != nil {
		t.Fatal(err)
	}
	s, err := audio.OpenSpeaker(&audio.SpeakerOptions{Backend: "alsa", Device: "acbridge_play", Volume: vol, Echo: p})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pcm := tone(audio.SampleRate/2, -10)
	if err := s.Write(pcm); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	vol.Duck(true)
	if err := s.Write(pcm); err != nil {
		t.Fatal(err)
	}
	if err := s.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	s.Close()
	if ref := p.Stats().Reference; ref < int64(st.Played) {
		t.Errorf("the canceller got %d reference samples; the speaker played %d", ref, st.Played)
	}
}

// A capture through ALSA (16-bit samples, unlike the test microphone's
// floats) goes through the Processor: here its gain, 6 dB.
func TestMicProcessesALSACapture(t *testing.T) {
	dir := alsaChild(t, "TestALSAChildMic", func(dir string) {
		pcm := tone(5*audio.SampleRate, -20)
		b := make([]byte, 2*len(pcm))
		for i, s := range pcm {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(s))
		}
		if err := os.WriteFile(filepath.Join(dir, "mic.raw"), b, 0o600); err != nil {
			t.Fatal(err)
		}
	})
	got := readRaw(t, filepath.Join(dir, "captured.raw"))
	if len(got) < audio.SampleRate/2 {
		t.Fatalf("captured %d samples, want half a second", len(got))
	}
	// Past the encoder's start-up, the tone is 6 dB louder than recorded.
	if level := audio.LevelDB(got, len(got)/4, len(got)); math.Abs(level+14) > 1.5 {
		t.Errorf("captured at %.1f dBFS, want -14 (-20 dBFS and 6 dB of gain)", level)
	}
	// Loose: a busy machine may let ALSA's capture overrun, which breaks
	// the tone's phase now and then.
	if f := audio.DominantFrequency(got[len(got)/4:], audio.SampleRate); math.Abs(f-440) > 40 {
		t.Errorf("captured a %.0f Hz tone, want 440 Hz", f)
	}
}

func TestALSAChildMic(t *testing.T) {
	dir := childDir(t)
	p, err := audio.NewProcessor(&audio.EchoOptions{GainDB: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	mic, err := audio.NewMic(&audio.MicOptions{Device: "acbridge_rec", Echo: p})
	if err != nil {
		t.Fatal(err)
	}
	defer mic.Close()
	if err := os.WriteFile(filepath.Join(dir, "captured.raw"), rawBytes(captureWith(t, mic)), 0o600); err != nil {
		t.Fatal(err)
	}
}
