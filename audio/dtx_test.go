package audio_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
)

// Two seconds of silence between two tones: digital silence, and a quiet
// room's noise (-61 dBFS, white). libopus sends the first frames of a
// silence in full (200 ms of digital silence, about 500 ms of noise, while
// its activity detector learns the noise); in the second second, with DTX
// (the default), every packet has at most 2 bytes but a comfort-noise
// update each 400 ms, and the payload is a quarter or less of what it is
// without DTX, where no packet is that small. The tone after the silence
// comes back in full packets and decodes at its frequency.
func TestDTXSilence(t *testing.T) {
	const hz = 1004
	second := audio.SampleRate
	frames := second / audio.FrameSamples // per second
	kbps := func(n int) float64 { return float64(n) * 8 / 1000 }
	for _, c := range []struct {
		name     string
		noiseRMS float64 // in sample units
	}{{"digital silence", 0}, {"noise at -61 dBFS", 30}} {
		silence := make([]int16, 2*second)
		noise := rand.New(rand.NewPCG(1, 2))
		for i := range silence {
			silence[i] = int16(noise.NormFloat64() * c.noiseRMS)
		}
		pcm := append(audiotest.Tone(hz, 0.25, second), silence...)
		pcm = append(pcm, audiotest.Tone(hz, 0.25, second)...)
		// The silence's second second: its payload bytes, and its
		// packets of at most 2 bytes.
		encode := func(o *audio.EncoderOptions) (silentBytes, tiny int, after []audio.Packet) {
			packets, err := audio.EncodePCM(pcm, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range packets[2*frames : 3*frames] {
				silentBytes += len(p.Data)
				if len(p.Data) <= 2 {
					tiny++
				}
			}
			return silentBytes, tiny, packets[3*frames:]
		}
		onBytes, onTiny, after := encode(nil)
		offBytes, offTiny, _ := encode(&audio.EncoderOptions{NoDTX: true})
		t.Logf("%s, its second second: %.2f kbit/s of payload with DTX, %d of %d packets ≤ 2 bytes; %.2f kbit/s without, %d ≤ 2 bytes",
			c.name, kbps(onBytes), onTiny, frames, kbps(offBytes), offTiny)
		// 400 ms apart, two or three updates fall in a second.
		if onTiny < frames-3 {
			t.Errorf("%s with DTX: %d of %d packets of its second second ≤ 2 bytes, want ≥ %d", c.name, onTiny, frames, frames-3)
		}
		if offTiny != 0 {
			t.Errorf("%s without DTX: %d packets ≤ 2 bytes", c.name, offTiny)
		}
		if onBytes*4 > offBytes {
			t.Errorf("%s: its second second cost %d bytes with DTX, %d without: want a quarter at most", c.name, onBytes, offBytes)
		}
		full := 0
		for _, p := range after[2:] {
			if len(p.Data) > 20 {
				full++
			}
		}
		if full != len(after)-2 {
			t.Errorf("tone after %s: %d of %d packets past the first two over 20 bytes", c.name, full, len(after)-2)
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
		t.Logf("tone after %s: %.2f Hz at %.1f dB SNR", c.name, lv.Dominant, lv.ToneSNR)
		if math.Abs(lv.Dominant-hz) > 1 || lv.ToneSNR < 20 {
			t.Errorf("tone after %s: %.2f Hz at %.1f dB SNR, want %d ± 1 Hz at ≥ 20 dB", c.name, lv.Dominant, lv.ToneSNR, hz)
		}
	}
}
