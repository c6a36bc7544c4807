package audio_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// Microphones that do not capture at 48 kHz, as ALSA plugin devices: a
// plug PCM whose slave is fixed at the rate and sample format of the
// microphone it stands for, over a file PCM that reads a generated tone.
// miniaudio turns ALSA's resampling off when it opens a device, so the
// plug cannot convert the rate and the device offers only its own: the
// 44.1 kHz-only or 16 kHz-only USB microphone. The Mic opens with ALSA's
// format conversion off as well, so an S24_3LE device hands miniaudio
// 3-byte samples.

// rateMic is one stand-in microphone.
type rateMic struct {
	name   string
	rate   int
	format string // ALSA's name of the sample format
}

var rateMics = []rateMic{
	{"acbridge_44k", 44100, "S16_LE"},
	{"acbridge_16k", 16000, "S16_LE"},
	{"acbridge_s24", 44100, "S24_3LE"},
	{"acbridge_32k_s32", 32000, "S32_LE"},
	// 24 bits in 4 bytes, which miniaudio cannot read: ALSA converts it.
	{"acbridge_s24_4", 48000, "S24_LE"},
}

// rateToneHz is the tone each stand-in microphone hears.
const rateToneHz = 1000.0

func (m rateMic) asoundrc(dir string) string {
	return fmt.Sprintf(`pcm.%[1]s_file {
	type file
	slave.pcm "null"
	file "/dev/null"
	infile "%[2]s/%[1]s.raw"
	format "raw"
}
pcm.%[1]s {
	type plug
	slave { pcm "%[1]s_file"; rate %[3]d; format %[4]s; channels 1 }
	hint { show on description "acbridge test microphone at %[3]d Hz %[4]s" }
}
`, m.name, dir, m.rate, m.format)
}

// raw is 3 s of the tone at -12 dBFS in the device's own format.
func (m rateMic) raw() []byte {
	n := 3 * m.rate
	var b []byte
	for i := range n {
		v := 0.25 * math.Sin(2*math.Pi*rateToneHz*float64(i)/float64(m.rate))
		switch m.format {
		case "S16_LE":
			b = binary.LittleEndian.AppendUint16(b, uint16(int16(v*math.MaxInt16)))
		case "S24_3LE":
			s := uint32(int32(v * (1<<23 - 1)))
			b = append(b, byte(s), byte(s>>8), byte(s>>16))
		case "S32_LE":
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v*math.MaxInt32)))
		case "S24_LE":
			b = binary.LittleEndian.AppendUint32(b, uint32(int32(v*(1<<23-1)))&0xffffff)
		}
	}
	return b
}

// brokenMic is listed (it has a hint) but does not open: a sound card's
// entry without a capture device. It sorts before the stand-ins.
const brokenMic = `pcm.acbridge_0broken {
	type hw
	card 29
	hint { show on description "acbridge test entry that does not capture" }
}
`

func writeRateMics(t *testing.T, dir string, mics []rateMic) {
	var conf strings.Builder
	conf.WriteString(brokenMic)
	for _, m := range mics {
		conf.WriteString(m.asoundrc(dir))
		if err := os.WriteFile(filepath.Join(dir, m.name+".raw"), m.raw(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, ".asoundrc"), []byte(conf.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// Each microphone is captured at its own rate and format, resampled to
// 48 kHz, and the agent hears the tone at its pitch: a capture that took
// 44.1 kHz audio for 48 kHz would play the tone 9 % high, one that took
// 16 kHz for 48 kHz three times too high.
func TestMicResamplesOtherRatesThroughALSA(t *testing.T) {
	dir := alsaChild(t, "TestALSAChildRates", func(dir string) { writeRateMics(t, dir, rateMics) })
	for _, m := range rateMics {
		t.Run(m.name, func(t *testing.T) {
			got := readRaw(t, filepath.Join(dir, m.name+".captured"))
			if len(got) < audio.SampleRate/2 {
				t.Fatalf("captured %d samples, want half a second", len(got))
			}
			b, err := os.ReadFile(filepath.Join(dir, m.name+".rate"))
			if err != nil {
				t.Fatal(err)
			}
			if rate, _ := strconv.Atoi(string(b)); rate != m.rate {
				t.Errorf("the device delivered %d Hz, want its own %d Hz (a conversion before ours)", rate, m.rate)
			}
			tail := got[len(got)/4:]
			f := audio.DominantFrequency(tail, audio.SampleRate)
			zc := zeroCrossingHz(tail, audio.SampleRate)
			t.Logf("%s: %d Hz %s in, 1000 Hz tone out at %.1f Hz (Goertzel), %.1f Hz (zero crossings), %.1f dBFS, %d samples",
				m.name, m.rate, m.format, f, zc, audio.LevelDB(tail, 0, len(tail)), len(got))
			// Loose: a busy machine may let ALSA's capture overrun, which
			// breaks the tone's phase now and then; a wrong rate is off by
			// 9 % or more.
			if math.Abs(f-rateToneHz) > 20 || math.Abs(zc-rateToneHz) > 30 {
				t.Errorf("the %d Hz tone arrived at %.1f Hz (zero crossings %.1f Hz)", int(rateToneHz), f, zc)
			}
			// -12 dBFS in; Opus and the resampler keep the level.
			if level := audio.LevelDB(tail, 0, len(tail)); math.Abs(level+15) > 2 {
				t.Errorf("captured at %.1f dBFS, want -15 (a -12 dBFS peak sine)", level)
			}
		})
	}
}

func TestALSAChildRates(t *testing.T) {
	dir := childDir(t)
	// The listing reports native rates (a plug device, converting in the
	// listing's probe, offers every standard rate; a USB microphone its own).
	listed := map[string][]int{}
	for _, d := range audio.Microphones() {
		listed[d.ID] = d.Rates
	}
	for _, m := range rateMics {
		if !slices.Contains(listed[m.name], m.rate) {
			t.Errorf("Microphones lists %s with rates %v, want %d among them", m.name, listed[m.name], m.rate)
		}
	}
	// The default microphone is one that captures, not the first entry.
	def, err := audio.NewMic(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer def.Close()
	if name := def.Name(); !strings.HasPrefix(name, "acbridge_") || name == "acbridge_0broken" {
		t.Errorf("the default microphone is %q, want a stand-in that captures", name)
	}
	if f := audio.DominantFrequency(captureWith(t, def), audio.SampleRate); math.Abs(f-rateToneHz) > 20 {
		t.Errorf("the default microphone's tone arrived at %.1f Hz", f)
	}
	for _, m := range rateMics {
		pcm, st := captureSecond(t, m.name)
		if err := os.WriteFile(filepath.Join(dir, m.name+".captured"), rawBytes(pcm), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, m.name+".rate"), []byte(strconv.Itoa(st.Rate)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// captureSecond captures a second of audio from the named microphone and
// returns it decoded, with the Mic's counters.
func captureSecond(t *testing.T, name string) ([]int16, audio.MicStats) {
	t.Helper()
	mic, err := audio.NewMic(&audio.MicOptions{Device: name})
	if err != nil {
		t.Fatal(err)
	}
	defer mic.Close()
	return captureWith(t, mic), mic.Stats()
}

func captureWith(t *testing.T, mic *audio.Mic) []int16 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := mic.Start(ctx); err != nil {
		t.Fatal(err)
	}
	dec, err := audio.NewDecoder()
	if err != nil {
		t.Fatal(err)
	}
	var pcm []int16
	for len(pcm) < audio.SampleRate {
		pkt, err := mic.ReadPacket(ctx)
		if err != nil {
			t.Fatal(err)
		}
		frame, err := dec.Decode(pkt.Data)
		if err != nil {
			t.Fatal(err)
		}
		pcm = append(pcm, frame...)
	}
	if err := mic.Stop(); err != nil {
		t.Fatal(err)
	}
	mic.Discard()
	return pcm
}

func rawBytes(pcm []int16) []byte {
	b := make([]byte, 0, 2*len(pcm))
	for _, s := range pcm {
		b = binary.LittleEndian.AppendUint16(b, uint16(s))
	}
	return b
}

// zeroCrossingHz estimates a tone's frequency from its upward zero
// crossings, independently of DominantFrequency's Goertzel scan.
func zeroCrossingHz(pcm []int16, rate int) float64 {
	first, last, n := -1, -1, 0
	for i := 1; i < len(pcm); i++ {
		if pcm[i-1] < 0 && pcm[i] >= 0 {
			if first < 0 {
				first = i
			} else {
				n++
			}
			last = i
		}
	}
	if n == 0 {
		return 0
	}
	return float64(n) * float64(rate) / float64(last-first)
}

// A microphone defined after the first lookup is found by the next one,
// without a restart, and one that goes away fails the next capture with a
// notice and is used again once it is back.
func TestMicFoundAgainThroughALSA(t *testing.T) {
	alsaChild(t, "TestALSAChildLate", nil)
}

func TestALSAChildLate(t *testing.T) {
	dir := childDir(t)
	late := rateMic{"acbridge_late", 44100, "S16_LE"}
	lazy := audio.NewLazyMic(&audio.MicOptions{Device: late.name})
	defer lazy.Close()
	if _, err := lazy.Open(); !errors.Is(err, audio.ErrNoMicrophone) {
		t.Fatalf("before it is plugged in: %v, want ErrNoMicrophone", err)
	}
	start, changes := time.Now(), 0
	plug := func(mics ...rateMic) {
		t.Helper()
		writeRateMics(t, dir, mics)
		// alsa-lib reloads its configuration when a file's time changes;
		// whole seconds apart, so that two changes within one second count.
		changes++
		at := start.Add(time.Duration(changes) * 10 * time.Second)
		if err := os.Chtimes(filepath.Join(dir, ".asoundrc"), at, at); err != nil {
			t.Fatal(err)
		}
	}
	plug(late)
	mic, err := lazy.Open()
	if err != nil {
		t.Fatalf("plugged in after the first lookup: %v", err)
	}
	if f := audio.DominantFrequency(captureWith(t, mic), audio.SampleRate); math.Abs(f-rateToneHz) > 20 {
		t.Errorf("the late microphone's tone arrived at %.1f Hz", f)
	}
	// Unplugged: the next capture says so.
	plug(rateMic{"acbridge_other", 16000, "S16_LE"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = mic.Start(ctx)
	if !errors.Is(err, audio.ErrNoMicrophone) || !strings.Contains(err.Error(), "not there now") {
		t.Fatalf("unplugged: %v, want ErrNoMicrophone saying it is not there now", err)
	}
	t.Logf("notice: %v", err)
	// Back: the next capture uses it again.
	plug(late)
	if f := audio.DominantFrequency(captureWith(t, mic), audio.SampleRate); math.Abs(f-rateToneHz) > 20 {
		t.Errorf("back again, the tone arrived at %.1f Hz", f)
	}
	if st := mic.Stats(); st.Runs != 2 || st.Rate != late.rate {
		t.Errorf("stats %+v, want 2 runs at %d Hz", st, late.rate)
	}
}
