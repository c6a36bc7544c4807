package accept

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// Audio criteria. The microphone must hear something (a dead or muted one
// reads near digital silence) and must not clip; the noise floor is
// measured for the echo-cancellation and gain settings, not judged, since
// a kiosk's room sets it.
const (
	minMicDBFS     = -60.0 // RMS of speech at arm's length is far above
	maxClippedFrac = 0.001 // samples at the rails
	toneHz         = 660.0 // off the test microphone's 480 Hz, inside every speaker's range
	toneLevel      = 0.5
	echoBaseline   = 500 * time.Millisecond
	echoTail       = 300 * time.Millisecond
)

// fixMicStalled is for a microphone that opened but stopped delivering
// audio: a deadline inside the recording is the device's, not the agent's.
const fixMicStalled = "the microphone opened but stopped delivering audio: check that audio.microphone names a capture device no other program holds (arecord -l; fuser -v /dev/snd/*), or reconnect it"

func (r *runner) audioSteps() []*step {
	return []*step{
		{id: "audio.microphone", group: GroupAudio, interactive: true, timeout: r.o.Recording + 15*time.Second,
			title:       fmt.Sprintf("a %v recording has level, no clipping, a measured noise floor", r.o.Recording),
			instruction: fmt.Sprintf("Speak normally towards the kiosk for %v (count from one to ten).", r.o.Recording),
			timeoutFix:  "the microphone delivered no audio in time: reconnect it and check `arecord -l`",
			run:         r.audioMic},
		{id: "audio.speaker", group: GroupAudio, interactive: true, timeout: r.o.Tone + r.o.StepTimeout,
			title:       "a tone from the speaker is heard",
			instruction: fmt.Sprintf("Listen: a %v tone plays from the kiosk's speaker.", r.o.Tone),
			timeoutFix:  "answer y or n after the tone",
			run:         r.audioSpeaker},
		{id: "audio.echo", group: GroupAudio, interactive: true, timeout: r.o.Tone + r.o.StepTimeout + 10*time.Second,
			title:       "optional: echo from the speaker into the microphone is estimated",
			instruction: "Optional loopback: the speaker plays a tone while the microphone records, to estimate echo. Keep the room quiet.",
			run:         r.audioEcho},
		r.openMicStep(),
	}
}

// record captures d of the microphone and decodes it: the same Opus path
// the agent receives.
func record(ctx context.Context, mic *audio.Mic, d time.Duration, during func()) ([]int16, error) {
	dec, err := audio.NewDecoder()
	if err != nil {
		return nil, err
	}
	want := int(d / audio.FrameDuration)
	if err := mic.Start(ctx); err != nil {
		return nil, err
	}
	var pcm []int16
	var rerr error
	for i := 0; i < want; i++ {
		if i == int(echoBaseline/audio.FrameDuration) && during != nil {
			during()
		}
		p, err := mic.ReadPacket(ctx)
		if err != nil {
			rerr = fmt.Errorf("the microphone delivered %d of %d packets: %w", i, want, err)
			break
		}
		s, err := dec.Decode(p.Data)
		if err != nil {
			rerr = err
			break
		}
		pcm = append(pcm, s...)
	}
	if err := mic.Stop(); err != nil && rerr == nil {
		rerr = err
	}
	// Packets queued after the last one read belong to no recording.
	done, cancel := context.WithCancel(ctx)
	cancel()
	for {
		if _, err := mic.ReadPacket(done); err != nil {
			break
		}
	}
	return pcm, rerr
}

func (r *runner) audioMic(ctx context.Context, t *T) error {
	mic, err := r.rig.openMic()
	if err != nil {
		return failErr(err, "")
	}
	t.prompt(ctx, Prompt{Action: ActSpeak, Text: t.res.Instruction})
	pcm, err := record(ctx, mic, r.o.Recording, nil)
	if err != nil {
		return failErr(err, fixMicStalled)
	}
	lv := audio.Analyze(pcm)
	t.measure("rms", audio.DBFS(lv.RMS), "dBFS")
	t.measure("peak", audio.DBFS(lv.Peak), "dBFS")
	t.measure("clipped", float64(lv.Clipped), "samples")
	t.measure("noiseFloor", audio.DBFS(lv.NoiseFloor), "dBFS")
	t.measure("dominant", lv.Dominant, "Hz")
	t.measureDur("recorded", lv.Duration)
	if rate := mic.Stats().Rate; rate > 0 {
		t.measure("deviceRate", float64(rate), "Hz")
		if rate != audio.SampleRate {
			t.note("the microphone captures at %d Hz; acbridge resamples it to 48 kHz", rate)
		}
	}
	switch {
	case lv.RMS == 0 || audio.DBFS(lv.RMS) < minMicDBFS:
		return failf("unmute the capture channel and raise its gain (alsamixer -c N, F4 for capture), or choose the right device in audio.microphone (arecord -l)",
			"the microphone hears next to nothing (%.0f dBFS)", audio.DBFS(lv.RMS))
	case float64(lv.Clipped) > maxClippedFrac*float64(len(pcm)):
		return failf("lower the capture gain (alsamixer -c N, F4 for capture) until speech peaks stay below full scale",
			"the recording clips: %d samples at full scale", lv.Clipped)
	}
	return nil
}

// tone is the test signal: audio's voice generator at a fixed pitch.
func tone(d time.Duration) ([]int16, error) {
	return audio.Voice(&audio.VoiceOptions{Pitch: toneHz, Duration: d, Level: toneLevel})
}

// play writes pcm in 20 ms frames and waits until a real speaker has
// played it.
func play(ctx context.Context, sink audio.Sink, pcm []int16) error {
	for off := 0; off < len(pcm); off += audio.FrameSamples {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sink.Write(pcm[off:min(off+audio.FrameSamples, len(pcm))]); err != nil {
			return err
		}
	}
	if sp, ok := sink.(*audio.Speaker); ok {
		return sp.Drain(ctx)
	}
	return nil
}

func (r *runner) audioSpeaker(ctx context.Context, t *T) error {
	sink, err := r.rig.openSpeaker()
	if err != nil {
		return failErr(err, "")
	}
	pcm, err := tone(r.o.Tone)
	if err != nil {
		return err
	}
	start := time.Now()
	if err := play(ctx, sink, pcm); err != nil {
		return failErr(fmt.Errorf("playing the tone: %w", err), audio.WarnNoSpeaker.Fix)
	}
	t.measureDur("played", time.Since(start))
	t.measure("tone", toneHz, "Hz")
	t.measure("level", audio.DBFS(toneLevel), "dBFS")
	heard, err := t.ask(ctx, Prompt{Action: ActListen, Text: "Did you hear the tone from the kiosk's speaker?"})
	if err != nil {
		return err
	}
	if !heard {
		return failf("raise the volume (alsamixer), check the speaker's cable and power, and that audio.speaker names it (aplay -l)",
			"the technician did not hear the tone")
	}
	return nil
}

// micAndSpeaker opens both for a step that needs both.
func (r *runner) micAndSpeaker(t *T) (*audio.Mic, audio.Sink, error) {
	mic, err := r.rig.openMic()
	if err != nil {
		return nil, nil, t.needs(err, "audio.microphone", "no microphone")
	}
	sink, err := r.rig.openSpeaker()
	if err != nil {
		return nil, nil, t.needs(err, "audio.speaker", "no speaker")
	}
	return mic, sink, nil
}

func (r *runner) audioEcho(ctx context.Context, t *T) error {
	mic, sink, err := r.micAndSpeaker(t)
	if err != nil {
		return err
	}
	yes, err := t.ask(ctx, Prompt{Action: ActEcho, Optional: true, Text: "Run the optional echo measurement now?"})
	if err != nil || !yes {
		return skipf("not run: the echo measurement is optional")
	}
	pcm, err := tone(r.o.Tone)
	if err != nil {
		return err
	}
	rec, err := recordPlaying(ctx, mic, sink, pcm)
	if err != nil {
		return failErr(err, "")
	}
	n := int(echoBaseline * audio.SampleRate / time.Second)
	if len(rec) <= n {
		return failf(audio.WarnNoMicrophone.Fix, "the recording is too short to compare")
	}
	base, during := audio.RMS(rec[:n]), audio.RMS(rec[n:])
	echo := math.Sqrt(max(0, during*during-base*base))
	dom := audio.DominantFrequency(rec[n:], audio.SampleRate)
	t.measure("background", audio.DBFS(base), "dBFS")
	t.measure("duringTone", audio.DBFS(during), "dBFS")
	t.measure("dominant", dom, "Hz")
	// Echo counts when the tone is what the microphone hears loudest and
	// it raised the level by 3 dB or more.
	if math.Abs(dom-toneHz) > toneHz*0.03 || during < base*math.Sqrt2 {
		t.measure("echoCancellation", 0, "")
		t.note("no echo of the tone above the background: echo cancellation is not needed for this mounting")
		return nil
	}
	erl := audio.DBFS(toneLevel/math.Sqrt2) - audio.DBFS(echo)
	t.measure("echoReturnLoss", erl, "dB")
	switch {
	case erl < 10:
		t.measure("echoCancellation", 1, "")
		t.note("strong echo (return loss %.0f dB): use echo cancellation and lower the speaker volume or move it away from the microphone", erl)
	case erl < 30:
		t.measure("echoCancellation", 1, "")
		t.note("echo return loss %.0f dB: use echo cancellation", erl)
	default:
		t.measure("echoCancellation", 0, "")
		t.note("echo return loss %.0f dB: echo cancellation is not needed", erl)
	}
	return nil
}
