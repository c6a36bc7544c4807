package audio

import (
	"errors"
	"math"
	"testing"
	"time"
)

// room simulates a kiosk: the far end played through path, plus near-end
// speech from nearFrom on (none when nearFrom < 0) and a little noise.
func room(d time.Duration, path *EchoPath, nearFrom time.Duration) (far, mic, near []int16) {
	far = SpeechLike(d, 120, 1)
	echo := path.Apply(far)
	near = make([]int16, len(far))
	if nearFrom >= 0 {
		talk := SpeechLike(d-nearFrom, 210, 2)
		copy(near[samplesOf(nearFrom):], talk)
	}
	noise := make([]float64, len(far))
	for i := range noise {
		noise[i] = 3 * math.Sin(float64(i)*0.37) // about -80 dBFS
	}
	return far, Mix(len(far), echo, Float(near), noise), near
}

func TestEchoCancellerRemovesEcho(t *testing.T) {
	p, err := NewProcessor(&EchoOptions{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	path := NewEchoPath(60*time.Millisecond, 6, 150*time.Millisecond, 90*time.Millisecond, 3)
	far, mic, _ := room(14*time.Second, path, -1)
	out, err := CancelEcho(p, far, mic)
	if err != nil {
		t.Fatal(err)
	}
	from := samplesOf(8 * time.Second)
	erle := ERLE(mic, out, from, len(out))
	st := p.Stats()
	t.Logf("ERLE %.1f dB, delay %v, realigned %d, late %d", erle, st.Delay, st.Realigned, st.FarLate)
	if erle < ERLETarget {
		t.Errorf("ERLE after convergence %.1f dB, want at least %.0f", erle, ERLETarget)
	}
	// The reference is pushed one frame before the microphone frame, as
	// a device's period would: the measured delay includes it.
	if want := 60 * time.Millisecond; !st.Measured || st.Delay < want-3*time.Millisecond || st.Delay > want+3*time.Millisecond {
		t.Errorf("measured delay %v (measured %v), want %v", st.Delay, st.Measured, want)
	}
}

// In double talk the near-end talker must come through: the canceller
// must not treat the voice as echo.
func TestEchoDoubleTalkKeepsNearEnd(t *testing.T) {
	p, err := NewProcessor(&EchoOptions{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	path := NewEchoPath(40*time.Millisecond, 6, 150*time.Millisecond, 90*time.Millisecond, 4)
	far, mic, near := room(14*time.Second, path, 10*time.Second)
	out, err := CancelEcho(p, far, mic)
	if err != nil {
		t.Fatal(err)
	}
	from := samplesOf(10 * time.Second)
	diff := LevelDB(out, from, len(out)) - LevelDB(near, from, len(out))
	t.Logf("near end after the canceller: %+.1f dB", diff)
	if math.Abs(diff) > 3 {
		t.Errorf("the near-end talker changed by %+.1f dB in double talk, want within 3 dB", diff)
	}
}

func TestEchoOffPassesThroughWithGain(t *testing.T) {
	p, err := NewProcessor(&EchoOptions{GainDB: 6})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Cancels() {
		t.Fatal("a Processor without Cancel says it cancels")
	}
	in := SpeechLike(time.Second, 150, 5)
	out, err := CancelEcho(p, make([]int16, len(in)), in)
	if err != nil {
		t.Fatal(err)
	}
	for i := range out {
		if want := saturate(float64(in[i]) * math.Pow(10, 6.0/20)); out[i] != want {
			t.Fatalf("sample %d: %d, want %d (6 dB of gain, nothing else)", i, out[i], want)
		}
	}
}

func TestEchoOptionsBounded(t *testing.T) {
	for _, o := range []EchoOptions{
		{Cancel: true, Tail: 15 * time.Millisecond},
		{Cancel: true, Tail: time.Second},
		{MaxDelay: 2 * time.Second},
		{GainDB: 31},
		{GainDB: math.NaN()},
	} {
		if p, err := NewProcessor(&o); err == nil {
			p.Close()
			t.Errorf("%+v accepted", o)
		} else if !errors.Is(err, ErrBadConfig) {
			t.Errorf("%+v: %v does not wrap ErrBadConfig", o, err)
		}
	}
	p, err := NewProcessor(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Process(make([]int16, 100)); !errors.Is(err, ErrBadPCM) {
		t.Errorf("a short frame: %v, want ErrBadPCM", err)
	}
	p.Close()
	if err := p.Process(make([]int16, EchoFrame)); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

// The speaker-to-microphone delay moves (a device's queue grew): the
// Processor measures the new delay, moves its alignment and cancels
// again.
func TestEchoFollowsADelayChange(t *testing.T) {
	p, err := NewProcessor(&EchoOptions{Cancel: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	far := SpeechLike(18*time.Second, 120, 6)
	half := samplesOf(8 * time.Second)
	before := NewEchoPath(40*time.Millisecond, 6, 150*time.Millisecond, 90*time.Millisecond, 7).Apply(far)
	after := NewEchoPath(190*time.Millisecond, 6, 150*time.Millisecond, 90*time.Millisecond, 8).Apply(far)
	echo := append(before[:half:half], after[half:]...)
	mic := Mix(len(far), echo)
	out, err := CancelEcho(p, far, mic)
	if err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	erle := ERLE(mic, out, samplesOf(14*time.Second), len(out))
	t.Logf("delay %v, realigned %d, ERLE after the change %.1f dB", st.Delay, st.Realigned, erle)
	if st.Delay != 190*time.Millisecond || st.Realigned < 1 {
		t.Errorf("delay %v after %d realignments, want 190ms after at least 1", st.Delay, st.Realigned)
	}
	if erle < ERLETarget {
		t.Errorf("ERLE %.1f dB after the delay moved, want at least %.0f", erle, ERLETarget)
	}
}
