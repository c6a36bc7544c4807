package audio_test

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// The reference agent's reply: generated, encoded, decoded into a WAV
// sink, and read back both by ParseWAV and by SoX as an independent
// reader.
func TestVoiceRoundTripToWAV(t *testing.T) {
	packets, err := audio.VoicePackets(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(packets) != 30 {
		t.Fatalf("600 ms of voice gave %d packets, want 30", len(packets))
	}
	path := filepath.Join(t.TempDir(), "reply.wav")
	sink, err := audio.CreateWAV(path)
	if err != nil {
		t.Fatal(err)
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var total time.Duration
	for _, p := range packets {
		total += p.Duration
		pcm, err := dec.Decode(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		if err := sink.Write(pcm); err != nil {
			t.Fatal(err)
		}
	}
	if total != 600*time.Millisecond {
		t.Errorf("packet durations add up to %v", total)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := sink.Write(make([]int16, 10)); !errors.Is(err, audio.ErrClosed) {
		t.Fatalf("Write after Close: %v", err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Size() != 44+2*30*960 {
		t.Errorf("file mode %v size %d", fi.Mode().Perm(), fi.Size())
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := audio.ReadWAV(f, 1<<20)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if w.SampleRate != 48000 || w.Channels != 1 || w.Duration() != 600*time.Millisecond {
		t.Fatalf("WAV %d Hz, %d channels, %v", w.SampleRate, w.Channels, w.Duration())
	}
	lv := audio.Analyze(w.Samples)
	t.Logf("reply: %v, RMS %.1f dBFS, peak %.3f, dominant %.2f Hz, noise floor %.1f dBFS", lv.Duration, audio.DBFS(lv.RMS), lv.Peak, lv.Dominant, audio.DBFS(lv.NoiseFloor))
	if math.Abs(lv.Dominant-audio.DefaultVoicePitch) > 3 {
		t.Errorf("dominant %.2f Hz, want 440 ± 3", lv.Dominant)
	}
	if lv.RMS < 0.1 || lv.Peak > 0.7 || lv.Clipped != 0 {
		t.Errorf("levels %+v", lv)
	}
	// Compare with the signal before the codec: Opus keeps level within a
	// dB or so for a steady voiced sound.
	orig, _ := audio.Voice(nil)
	if d := audio.DBFS(lv.RMS) - audio.DBFS(audio.RMS(orig)); math.Abs(d) > 1.5 {
		t.Errorf("codec changed the level by %.2f dB", d)
	}

	requireTool(t, "soxi", "sox")
	soxi := func(flag string) string {
		out, err := exec.Command("soxi", flag, path).CombinedOutput()
		if err != nil {
			t.Fatalf("soxi %s: %v: %s", flag, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if r, c, b, s := soxi("-r"), soxi("-c"), soxi("-b"), soxi("-s"); r != "48000" || c != "1" || b != "16" || s != "28800" {
		t.Errorf("soxi: rate %s, channels %s, bits %s, samples %s", r, c, b, s)
	}
	if e := soxi("-e"); e != "Signed Integer PCM" {
		t.Errorf("soxi encoding %q", e)
	}
	out, err := exec.Command("sox", path, "-n", "stat").CombinedOutput()
	if err != nil {
		t.Fatalf("sox stat: %v: %s", err, out)
	}
	var soxRMS float64
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "RMS     amplitude:"); ok {
			soxRMS, _ = strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	if math.Abs(soxRMS-lv.RMS) > 0.002 {
		t.Errorf("sox RMS %.4f, ours %.4f", soxRMS, lv.RMS)
	}
}

// A malformed packet is refused and leaves the decoder as it was: the
// packets after it decode bit-exactly as they do without it.
func TestDecoderBadPacketKeepsState(t *testing.T) {
	packets, err := audio.VoicePackets(&audio.VoiceOptions{Pitch: 300, Duration: 200 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clean, _ := audio.NewDecoder()
	dirty, _ := audio.NewDecoder()
	bad := [][]byte{
		nil,
		make([]byte, audio.MaxPacketSize+1),
		{0xff, 0xff, 0xff}, // code-3 TOC with an impossible frame count
	}
	for i, p := range packets {
		want, err := clean.Decode(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range bad {
			if _, err := dirty.Decode(b); !errors.Is(err, audio.ErrBadPacket) {
				t.Fatalf("bad packet % x...: %v, want ErrBadPacket", b[:min(len(b), 3)], err)
			}
		}
		got, err := dirty.Decode(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("packet %d decodes differently after a rejected packet", i)
		}
	}
}

func TestDecodeLost(t *testing.T) {
	packets, err := audio.VoicePackets(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := audio.NewDecoder()
	for _, p := range packets[:10] {
		if _, err := dec.Decode(p.Data); err != nil {
			t.Fatal(err)
		}
	}
	pcm, err := dec.DecodeLost(40 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if len(pcm) != 2*audio.FrameSamples {
		t.Fatalf("40 ms concealed as %d samples", len(pcm))
	}
	// Concealment continues the voice rather than dropping to silence.
	if audio.RMS(pcm[:audio.FrameSamples]) < 0.05 {
		t.Errorf("concealment is near silent: RMS %.4f", audio.RMS(pcm))
	}
	for _, d := range []time.Duration{0, -time.Millisecond, time.Millisecond, 121 * time.Millisecond} {
		if _, err := dec.DecodeLost(d); !errors.Is(err, audio.ErrBadConfig) {
			t.Errorf("DecodeLost(%v): %v, want ErrBadConfig", d, err)
		}
	}
	if _, err := dec.Decode(packets[12].Data); err != nil {
		t.Fatalf("decoding after concealment: %v", err)
	}
}

func TestEncoderInput(t *testing.T) {
	enc, err := audio.NewEncoder(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 959, 961, 1920} {
		if _, err := enc.Encode(make([]int16, n)); !errors.Is(err, audio.ErrBadPCM) {
			t.Errorf("frame of %d samples: %v, want ErrBadPCM", n, err)
		}
	}
	p, err := enc.Encode(make([]int16, audio.FrameSamples))
	if err != nil || len(p.Data) == 0 || p.Duration != audio.FrameDuration {
		t.Fatalf("silent frame: %v, %d bytes, %v", err, len(p.Data), p.Duration)
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	if err := enc.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := enc.Encode(make([]int16, audio.FrameSamples)); !errors.Is(err, audio.ErrClosed) {
		t.Fatalf("Encode after Close: %v", err)
	}
	// The tail is padded to a whole frame.
	ps, err := audio.EncodePCM(make([]int16, audio.FrameSamples+1), nil)
	if err != nil || len(ps) != 2 {
		t.Fatalf("EncodePCM of 961 samples: %d packets, %v", len(ps), err)
	}
}

func TestVoiceOptions(t *testing.T) {
	for _, o := range []audio.VoiceOptions{
		{Pitch: 50}, {Pitch: 5000}, {Pitch: math.NaN()},
		{Duration: time.Millisecond}, {Duration: time.Minute},
		{Level: -0.5}, {Level: 1.5},
	} {
		if _, err := audio.Voice(&o); !errors.Is(err, audio.ErrBadConfig) {
			t.Errorf("%+v: %v, want ErrBadConfig", o, err)
		}
	}
	pcm, err := audio.Voice(&audio.VoiceOptions{Pitch: 220, Duration: time.Second, Level: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	lv := audio.Analyze(pcm)
	if len(pcm) != 48000 || math.Abs(lv.Dominant-220) > 1 || lv.Peak > 0.25 || lv.Peak < 0.15 {
		t.Errorf("%d samples, %+v", len(pcm), lv)
	}
	// Onset and release are smooth: no click at either end.
	if a, b := math.Abs(float64(pcm[0])), math.Abs(float64(pcm[len(pcm)-1])); a > 50 || b > 50 {
		t.Errorf("first/last samples %d/%d", pcm[0], pcm[len(pcm)-1])
	}
}
