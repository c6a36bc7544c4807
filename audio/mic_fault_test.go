package audio_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/audio/audiotest"
	"github.com/pion/mediadevices/pkg/driver"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/mediadevices/pkg/wave"
)

// faultyMic is a microphone driver that delivers a few frames and then
// either hangs (a USB microphone pulled out mid-read) or fails. It stands
// in for hardware faults that no software device can produce on demand.
type faultyMic struct {
	frames int   // frames delivered before the fault
	fail   error // nil: hang until Close
	mu     sync.Mutex
	closed chan struct{}
	open   bool
}

var _ driver.AudioRecorder = (*faultyMic)(nil)

func (f *faultyMic) Open() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed, f.open = make(chan struct{}), true
	return nil
}

func (f *faultyMic) Close() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.open {
		close(f.closed)
		f.open = false
	}
	return nil
}

func (f *faultyMic) isOpen() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.open
}

func (f *faultyMic) Properties() []prop.Media {
	return []prop.Media{{Audio: prop.Audio{SampleRate: audio.SampleRate, ChannelCount: 1, Latency: audio.FrameDuration}}}
}
func (f *faultyMic) ID() string { return "faulty" }
func (f *faultyMic) Info() driver.Info {
	return driver.Info{Label: "faulty", DeviceType: driver.Microphone}
}
func (f *faultyMic) Status() driver.State { return driver.StateClosed }

func (f *faultyMic) AudioRecord(p prop.Media) (mdaudio.Reader, error) {
	f.mu.Lock()
	closed := f.closed
	f.mu.Unlock()
	n := 0
	return mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		if n < f.frames {
			n++
			return wave.NewInt16Interleaved(wave.ChunkInfo{Len: audio.FrameSamples, Channels: 1, SamplingRate: audio.SampleRate}), func() {}, nil
		}
		if f.fail != nil {
			return nil, func() {}, f.fail
		}
		<-closed
		return nil, func() {}, errors.New("device closed")
	}), nil
}

func TestMicStopsHungDevice(t *testing.T) { synctest.Test(t, testMicStopsHungDevice) }

func testMicStopsHungDevice(t *testing.T) {
	dev := &faultyMic{frames: 3}
	m, err := audio.NewMic(&audio.MicOptions{Driver: dev})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	synctest.Wait() // the three frames, then the hang
	start := time.Now()
	err = m.Stop()
	t.Logf("Stop took %v: %v", time.Since(start), err)
	if !errors.Is(err, audio.ErrStalled) {
		t.Errorf("Stop of a hung device: %v, want ErrStalled", err)
	}
	if dev.isOpen() || m.Running() {
		t.Fatal("a hung device stayed open after Stop")
	}
	if st := m.Stats(); st.Packets != 3 {
		t.Errorf("%d packets before the hang, want 3", st.Packets)
	}
}

func TestMicReportsDeviceFailure(t *testing.T) { synctest.Test(t, testMicReportsDeviceFailure) }

func testMicReportsDeviceFailure(t *testing.T) {
	boom := errors.New("EIO")
	dev := &faultyMic{frames: 2, fail: boom}
	m, err := audio.NewMic(&audio.MicOptions{Driver: dev})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	synctest.Wait() // the run ended on the failure
	if dev.isOpen() {
		t.Fatal("failed device left open")
	}
	// The turn's owner learns of the failure on release.
	if err := m.Stop(); !errors.Is(err, boom) {
		t.Fatalf("Stop after a failure: %v, want the device error", err)
	}
	if err := m.Stop(); err != nil {
		t.Fatalf("the failure was reported twice: %v", err)
	}
	for i := 0; i < 2; i++ {
		if _, err := m.ReadPacket(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}

// stallingDriver wraps the test microphone and holds its second read for a
// while, as a starved CPU would hold the capture goroutine.
type stallingDriver struct {
	driver.Driver
	stall time.Duration
}

func (s *stallingDriver) AudioRecord(p prop.Media) (mdaudio.Reader, error) {
	r, err := s.Driver.(driver.AudioRecorder).AudioRecord(p)
	if err != nil {
		return nil, err
	}
	reads := 0
	return mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		reads++
		if reads == 2 {
			time.Sleep(s.stall) // synctest's clock: the starved capture goroutine
		}
		return r.Read()
	}), nil
}

// A capture that fell behind still delivers the audio recorded up to Stop.
func TestMicStopCatchesUp(t *testing.T) { synctest.Test(t, testMicStopCatchesUp) }

func testMicStopCatchesUp(t *testing.T) {
	d, err := audiotest.TestDriver()
	if err != nil {
		t.Fatal(err)
	}
	m, err := audio.NewMic(&audio.MicOptions{Driver: &stallingDriver{Driver: d, stall: 400 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // synctest's clock: the pump is stuck in the stalled read
	start := time.Now()
	if err := m.Stop(); err != nil {
		t.Fatal(err)
	}
	got := m.Stats().Packets
	t.Logf("%d packets for 300 ms; Stop took %v", got, time.Since(start))
	if got < 14 || got > 20 {
		t.Fatalf("%d packets for 300 ms of capture, want about 15", got)
	}
}
