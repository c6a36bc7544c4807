package vmtest

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// snd-aloop joins each playback substream of its device 0 to the capture
// substream of the same number on device 1. The microphone is capture
// substream 0, fed by aplay on playback substream 0 (the "person" talking);
// the speaker is playback substream 1, whose sound arecord takes from
// capture substream 1 (the "ear"). Two substreams keep the person's voice
// and the kiosk's speaker apart, so each check hears only its own signal.
const (
	loopPerson = "hw:CARD=Loopback,DEV=0,SUBDEV=0"
	loopMic    = "hw:CARD=Loopback,DEV=1,SUBDEV=0"
	loopSpk    = "hw:CARD=Loopback,DEV=0,SUBDEV=1"
	loopEar    = "hw:CARD=Loopback,DEV=1,SUBDEV=1"

	personHz = 440.0 // the "voice" aplay plays
	kioskHz  = 660.0 // accept's speaker tone (accept.toneHz)
)

// audioConfig is the daemon's configuration with the loopback card's
// substreams as microphone and speaker.
var audioConfig = daemonConfig + fmt.Sprintf(`
[audio]
microphone = %q
speaker = %q
echo_cancel = "off"
`, loopMic, loopSpk)

// testAudio: accept's microphone and speaker steps on the real ALSA hw
// devices of snd-aloop. The microphone must deliver the person's 440 Hz
// through Opus at a level and without clipping; the speaker's 660 Hz tone
// must come out of the kernel's playback device, which the technician's
// "yes" is given only after the host has found it in the ear's recording.
func (r *rig) testAudio(t *testing.T) {
	r.sh(t, 20*time.Second, "while pidof acbridge >/dev/null; do usleep 50000; done")
	if _, err := r.vm.RunInput(t.Context(), 10*time.Second, audioConfig, "sh", "-c", "mkdir -p /etc/acbridge && cat > /etc/acbridge/audio.toml"); err != nil {
		t.Fatal(err)
	}
	r.talkAndListen(t, "/tmp/ear")
	t.Cleanup(func() {
		r.vm.Run(context.Background(), 5*time.Second, "sh", "-c", "kill $(pidof arecord aplay sleep) 2>/dev/null")
	})
	// Answers go through a FIFO held open, as a technician's terminal is.
	r.sh(t, 10*time.Second, "rm -f /tmp/ans /tmp/aud.out /tmp/aud.json; mkfifo /tmp/ans; (sleep 300 > /tmp/ans 2>/dev/null </dev/null &); "+
		"(acbridge accept --config /etc/acbridge/audio.toml --only audio.microphone,audio.speaker --report /tmp/aud.json < /tmp/ans > /tmp/aud.out 2>&1; echo exit=$? >> /tmp/aud.out) >/dev/null 2>&1 &")
	r.waitFile(t, "/tmp/aud.out", "Did you hear the tone", 1, 90*time.Second)

	ear := r.fetchPCM(t, "/tmp/ear.wav")
	hz, share, dbfs := toneIn(ear, kioskHz)
	t.Logf("ear: %.0f%% of the power at %.0f Hz, %.1f dBFS over %v", 100*share, hz, dbfs, time.Duration(len(ear))*time.Second/48000)
	heard := share > 0.5 && dbfs > -40
	answer := "n"
	if heard {
		answer = "y"
	} else {
		t.Errorf("the speaker's tone did not reach the loopback card: %.0f%% of the power at %.0f Hz, %.1f dBFS", 100*share, hz, dbfs)
	}
	r.sh(t, 5*time.Second, "echo "+answer+" > /tmp/ans")
	r.waitFile(t, "/tmp/aud.out", "exit=", 1, 60*time.Second)

	out := r.run(t, 5*time.Second, "cat", "/tmp/aud.out").Stdout
	var rep struct {
		Device struct {
			Microphone string `json:"microphone"`
			Speaker    string `json:"speaker"`
		} `json:"device"`
		Steps []struct {
			ID           string `json:"id"`
			Result       string `json:"result"`
			Reason       string `json:"reason"`
			Measurements []struct {
				Name  string  `json:"name"`
				Value float64 `json:"value"`
			} `json:"measurements"`
		} `json:"steps"`
	}
	js := r.run(t, 5*time.Second, "cat", "/tmp/aud.json").Stdout
	if err := json.Unmarshal([]byte(js), &rep); err != nil {
		t.Fatalf("report: %v\n%s\n%s", err, js, out)
	}
	passed := map[string]bool{}
	for _, s := range rep.Steps {
		passed[s.ID] = s.Result == "pass"
		if s.Result != "pass" {
			t.Errorf("accept step %s: %s %s", s.ID, s.Result, s.Reason)
		}
		if s.ID != "audio.microphone" {
			continue
		}
		m := map[string]float64{}
		for _, v := range s.Measurements {
			m[v.Name] = v.Value
		}
		t.Logf("microphone: %v", m)
		if d := m["dominant"]; math.Abs(d-personHz) > 15 {
			t.Errorf("the microphone's dominant frequency is %.0f Hz, want the person's %.0f Hz", d, personHz)
		}
		if m["rms"] < -30 {
			t.Errorf("the microphone's level is %.1f dBFS for a -12 dBFS tone", m["rms"])
		}
	}
	for _, id := range []string{"audio.microphone", "audio.speaker"} {
		if !passed[id] {
			t.Errorf("accept step %s did not pass", id)
		}
	}
	if !strings.Contains(rep.Device.Microphone+rep.Device.Speaker, "Loopback") {
		t.Errorf("the report names microphone %q and speaker %q, want the loopback card's", rep.Device.Microphone, rep.Device.Speaker)
	}
	if t.Failed() {
		logs, _ := r.vm.Run(t.Context(), 5*time.Second, "sh", "-c", "cat /tmp/ear.log /tmp/ear-person.log; grep -r . /proc/asound/card0/pcm*/sub[01]/status /proc/asound/card0/pcm*/sub[01]/hw_params")
		t.Logf("accept output:\n%s\naplay/arecord:\n%s", out, logs.Stdout)
	}
}

// talkAndListen starts the ear, arecord of the speaker's substream into
// EAR.wav (its messages in EAR.log), and then the person, aplay of
// personHz into the microphone's substream (EAR-person.log), which talks
// until it is killed.
func (r *rig) talkAndListen(t *testing.T, ear string) {
	t.Helper()
	// One second of a whole number of periods, repeated without a seam:
	// snd-aloop's capture stalls when its playback side ends, and how long
	// the guest takes to reach the microphone depends on the host.
	voice := tonePCM(personHz, time.Second, 0.25)
	if _, err := r.vm.RunInput(t.Context(), 30*time.Second, base64.StdEncoding.EncodeToString(voice), "sh", "-c", "base64 -d > /tmp/voice.raw"); err != nil {
		t.Fatal(err)
	}
	// The ear opens first, at the format the speaker will be held to.
	r.sh(t, 10*time.Second, fmt.Sprintf(
		"rm -f %[1]s.wav; arecord -q -D %[2]s -f S16_LE -r 48000 -c 1 -d 120 %[1]s.wav > %[1]s.log 2>&1 & "+
			"(while cat /tmp/voice.raw; do :; done | aplay -q -D %[3]s -t raw -f S16_LE -r 48000 -c 1 > %[1]s-person.log 2>&1) >/dev/null 2>&1 &", ear, loopEar, loopPerson))
}

// fetchPCM reads a 16-bit mono WAV file from the guest, as it is so far.
func (r *rig) fetchPCM(t *testing.T, path string) []int16 {
	t.Helper()
	rep := r.run(t, 30*time.Second, "base64", path)
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(rep.Stdout), ""))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(raw) < 44 {
		t.Fatalf("%s holds %d bytes: arecord recorded nothing", path, len(raw))
	}
	pcm := make([]int16, (len(raw)-44)/2)
	binary.Read(bytes.NewReader(raw[44:44+2*len(pcm)]), binary.LittleEndian, pcm)
	return pcm
}

// tonePCM is raw 48 kHz 16-bit little-endian mono samples of a sine at hz.
func tonePCM(hz float64, d time.Duration, level float64) []byte {
	n := int(d.Seconds() * 48000)
	b := make([]byte, 2*n)
	for i := range n {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(level*32767*math.Sin(2*math.Pi*hz*float64(i)/48000))))
	}
	return b
}

// toneIn finds the 100 ms of pcm with the most power at want (±10 Hz)
// and returns that window's strongest frequency (10 Hz steps, 100–2000 Hz),
// the share of its power at want, and its level. A host too busy to feed
// the guest leaves gaps in the sound; one whole window of the tone is
// enough to tell that the speaker played it.
func toneIn(pcm []int16, want float64) (hz, share, dbfs float64) {
	const win = 4800
	at := func(x []float64) float64 {
		p := 0.0
		for f := want - 10; f <= want+10; f += 10 {
			p = math.Max(p, goertzel(x, f))
		}
		return p
	}
	x := make([]float64, win)
	best, bestAt := -1, 0.0
	for off := 0; off+win <= len(pcm); off += win / 2 {
		for i, s := range pcm[off : off+win] {
			x[i] = float64(s) / 32768
		}
		if p := at(x); p > bestAt {
			best, bestAt = off, p
		}
	}
	if best < 0 {
		return 0, 0, math.Inf(-1)
	}
	for i, s := range pcm[best : best+win] {
		x[i] = float64(s) / 32768
	}
	total := 0.0
	for _, v := range x {
		total += v * v
	}
	dbfs = 10 * math.Log10(total/win)
	peak := 0.0
	for f := 100.0; f <= 2000; f += 10 {
		if p := goertzel(x, f); p > peak {
			peak, hz = p, f
		}
	}
	// A pure sine's Goertzel power over n samples is n/2 times its mean
	// square.
	share = bestAt / (total * win / 2)
	return hz, share, dbfs
}

func goertzel(x []float64, f float64) float64 {
	c := 2 * math.Cos(2*math.Pi*f/48000)
	var s1, s2 float64
	for _, v := range x {
		s1, s2 = v+c*s1-s2, s1
	}
	return s1*s1 + s2*s2 - c*s1*s2
}
