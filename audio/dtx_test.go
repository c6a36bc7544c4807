package audio_test

import (
	"math"
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
)

// dtxHangover is how many frames libopus keeps sending in full once the
// input falls silent, before it switches to DTX (10 in libopus 1.3), with
// margin for the tone's decay.
const dtxHangover = 12

// A second of digital silence between two tones: with DTX (the default)
// the encoder sends packets of at most 2 bytes once its hangover is past,
// apart from a comfort-noise update every 400 ms; without, every silent
// frame is a full packet. The tone after the silence comes back in full
// packets and decodes at its frequency.
func TestDTXSilence(t *testing.T) {
	const hz = 1004
	second := audio.SampleRate
	pcm := append(audiotest.Tone(hz, 0.25, second), make([]int16, second)...)
	pcm = append(pcm, audiotest.Tone(hz, 0.25, second)...)
	frames := second / audio.FrameSamples // per second
	// The silence past the hangover: its payload bytes, and its packets
	// of at most 2 bytes.
	encode := func(o *audio.EncoderOptions) (silentBytes, tiny int, after []audio.Packet) {
		packets, err := audio.EncodePCM(pcm, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range packets[frames+dtxHangover : 2*frames] {
			silentBytes += len(p.Data)
			if len(p.Data) <= 2 {
				tiny++
			}
		}
		return silentBytes, tiny, packets[2*frames:]
	}
	onBytes, onTiny, after := encode(nil)
	offBytes, offTiny, _ := encode(&audio.EncoderOptions{NoDTX: true})
	window := frames - dtxHangover
	kbps := func(n int) float64 { return float64(n) * 8 / (float64(window) * audio.FrameDuration.Seconds()) / 1000 }
	t.Logf("silence past the hangover: %.2f kbit/s of payload with DTX, %d of %d packets ≤ 2 bytes; %.2f kbit/s without, %d ≤ 2 bytes",
		kbps(onBytes), onTiny, window, kbps(offBytes), offTiny)
	// One comfort-noise update in 400 ms may fall in the window.
	if onTiny < window-window/20-2 {
		t.Errorf("with DTX: %d of %d silent frames past the hangover ≤ 2 bytes", onTiny, window)
	}
	if offTiny != 0 {
		t.Errorf("without DTX: %d silent frames ≤ 2 bytes", offTiny)
	}
	if onBytes*4 > offBytes {
		t.Errorf("silence past the hangover cost %d bytes with DTX, %d without: want a quarter at most", onBytes, offBytes)
	}

	full := 0
	for _, p := range after[2:] {
		if len(p.Data) > 20 {
			full++
		}
	}
	if full != len(after)-2 {
		t.Errorf("tone after the silence: %d of %d packets past the first two over 20 bytes", full, len(after)-2)
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var out []int16
	for _, p := range after {
		f, err := dec.Decode(p.Data)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f...)
	}
	lv := audio.Analyze(out[len(out)/4:])
	t.Logf("tone after the silence: %.2f Hz at %.1f dB SNR", lv.Dominant, lv.ToneSNR)
	if math.Abs(lv.Dominant-hz) > 1 || lv.ToneSNR < 20 {
		t.Errorf("tone after the silence: %.2f Hz at %.1f dB SNR, want %d ± 1 Hz at ≥ 20 dB", lv.Dominant, lv.ToneSNR, hz)
	}
}
