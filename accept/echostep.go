package accept

import (
	"context"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/audio"
)

// The open-microphone check: can an agent without explicit turns listen
// while it talks on this kiosk? The speaker plays a voice-like signal
// twice while the microphone records: first as it is, which gives the
// echo's level; then through the echo canceller as `acbridge run` uses it
// (the reference taken from the speaker, the microphone cleaned before
// encoding), which gives the measured delay and what the canceller
// leaves after converging. Both recordings go through Opus, the path the
// agent hears.
const (
	rawEchoSignal  = 3 * time.Second  // the first playing
	aecEchoSignal  = 10 * time.Second // the second: convergence, then the measured part
	aecMeasureFrom = 7 * time.Second  // into the second playing
	echoSettle     = 200 * time.Millisecond
)

// echoTapper is a speaker that can hand what it plays to a canceller:
// audio.Speaker and the simulated room.
type echoTapper interface {
	SetEcho(*audio.Processor)
}

func (r *runner) openMicStep() *step {
	return &step{id: "audio.open-microphone", group: GroupAudio, interactive: true,
		timeout:     rawEchoSignal + aecEchoSignal + r.o.StepTimeout,
		title:       "the echo level, the speaker-to-microphone delay and the echo canceller's ERLE say whether open-microphone agents fit this kiosk",
		instruction: fmt.Sprintf("Keep the room quiet: the speaker plays a voice-like signal for %v, then for %v, while the microphone records.", rawEchoSignal, aecEchoSignal),
		run:         r.audioOpenMic}
}

func (r *runner) audioOpenMic(ctx context.Context, t *T) error {
	mic, sink, err := r.micAndSpeaker(t)
	if err != nil {
		return err
	}
	tap, ok := sink.(echoTapper)
	if !ok {
		return skipf("the speaker in use hands no reference to an echo canceller")
	}
	t.prompt(ctx, Prompt{Action: ActListen, Text: t.res.Instruction})
	// The signal plays at the configured volume, as the agent's voice will.
	far := audio.SpeechLike(aecEchoSignal, 120, 9)
	gain := float64(r.o.Config.Audio.SpeakerVolume) / 100
	for i, v := range far {
		far[i] = int16(float64(v) * gain)
	}
	base := samples(echoBaseline)

	rec, err := recordPlaying(ctx, mic, sink, far[:samples(rawEchoSignal)])
	if err != nil {
		return failErr(err, "")
	}
	noise := audio.Power(rec[:base])
	farRaw := audio.Power(far[samples(echoSettle):samples(rawEchoSignal)])
	echo := audio.Power(rec[base+samples(echoSettle):base+samples(rawEchoSignal)]) - noise
	t.measure("background", audio.PowerDB(noise), "dBFS")
	t.measure("echoLevel", audio.PowerDB(max(echo, 0)), "dBFS")
	if echo < noise || audio.PowerDB(echo) < -70 {
		t.measure("openMicrophone", 1, "")
		t.note("the microphone does not hear the speaker above the room's noise: open-microphone agents are fit to use on this kiosk")
		return nil
	}
	erl := audio.PowerDB(farRaw) - audio.PowerDB(echo)
	t.measure("echoReturnLoss", erl, "dB")

	p, err := audio.NewProcessor(&audio.EchoOptions{Cancel: true, Logger: r.o.Logger})
	if err != nil {
		return failErr(err, "install libspeexdsp1 (the package's dependency) or set audio.echo_cancel = \"off\" and use push-to-talk")
	}
	defer p.Close()
	if err := mic.SetEcho(p); err != nil {
		return failErr(err, "")
	}
	tap.SetEcho(p)
	rec, err = recordPlaying(ctx, mic, sink, far)
	tap.SetEcho(nil)
	mic.SetEcho(nil)
	if err != nil {
		return failErr(err, "")
	}
	st := p.Stats()
	if st.Measured {
		t.measure("delay", float64(st.Delay.Microseconds())/1000, "ms")
	}
	from := samples(aecMeasureFrom)
	farLate := audio.Power(far[from:])
	left := audio.Power(rec[base+from:base+len(far)]) - noise
	erle := audio.PowerDB(echo) - audio.PowerDB(farRaw) - (audio.PowerDB(max(left, noise/10)) - audio.PowerDB(farLate))
	below := left < noise/2 // what is left is the room's noise
	if below {
		t.note("what the canceller leaves is below the room's noise: ERLE is at least the figure shown")
	}
	t.measure("erle", erle, "dB")
	fit := erle >= audio.ERLETarget || below
	if fit {
		t.measure("openMicrophone", 1, "")
		t.note("open-microphone agents are fit to use on this kiosk: echo %.0f dBFS, delay %v, the canceller takes %.0f dB off it (target %.0f dB)", audio.PowerDB(echo), st.Delay, erle, audio.ERLETarget)
		if r.o.Config.Audio.EchoCancel == "off" {
			t.note("audio.echo_cancel is off: set it to \"auto\" before using open-microphone agents")
		}
		return nil
	}
	t.measure("openMicrophone", 0, "")
	if !st.Measured {
		t.note("the canceller could not find the echo's delay (over %v?)", audio.DefaultMaxEchoDelay)
	}
	t.note("keep this kiosk on push-to-talk: the canceller takes only %.0f dB off an echo of %.0f dBFS (return loss %.0f dB), target %.0f dB. To fit open-microphone agents, move the speaker away from the microphone or point it away, lower audio.speaker_volume, or use a headset or an array microphone with its own echo cancellation",
		erle, audio.PowerDB(echo), erl, audio.ERLETarget)
	return nil
}

// recordPlaying records the microphone while far plays: echoBaseline of
// the room first, then far, then echoTail.
func recordPlaying(ctx context.Context, mic *audio.Mic, sink audio.Sink, far []int16) ([]int16, error) {
	played := make(chan error, 1)
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	started := false
	d := echoBaseline + time.Duration(len(far))*time.Second/audio.SampleRate + echoTail
	rec, err := record(ctx, mic, d, func() {
		started = true
		go func() { played <- play(pctx, sink, far) }()
	})
	if started {
		if perr := <-played; perr != nil && err == nil {
			err = fmt.Errorf("playing the test signal: %w", perr)
		}
	}
	if err == nil && len(rec) < samples(echoBaseline)+len(far) {
		err = fmt.Errorf("the recording is %d samples, shorter than the signal", len(rec))
	}
	return rec, err
}

func samples(d time.Duration) int { return int(d * audio.SampleRate / time.Second) }
