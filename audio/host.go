package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/gen2brain/malgo"
	"github.com/pion/mediadevices/pkg/driver"
	mdaudio "github.com/pion/mediadevices/pkg/io/audio"
	"github.com/pion/mediadevices/pkg/prop"
	"github.com/pion/mediadevices/pkg/wave"

	"github.com/agentcall/acbridge/audio/internal/alsaquiet"
)

// The host's capture devices are reached through miniaudio directly rather
// than through mediadevices' microphone driver, whose package init creates
// a sound-system context at program start: that maps libpulse and its
// dependencies (libX11, libsndfile, codecs) into every process importing
// this package, and keeps a PulseAudio connection, although a daemon
// serving text agents never records. Here a context exists only while it is
// needed: for a listing, and for one capture run.

// newContext opens a sound-system context; alsa-lib's error printer is
// silenced first.
func newContext(backends []malgo.Backend) (*malgo.AllocatedContext, error) {
	alsaquiet.Install()
	return malgo.InitContext(backends, malgo.ContextConfig{}, nil)
}

func freeContext(ctx *malgo.AllocatedContext) {
	_ = ctx.Uninit()
	ctx.Free()
}

// hostDrivers lists the host's capture devices, each as a driver that
// opens its own context when a run starts. The listing's context is closed
// before returning. With probe, each device is also opened to read its
// native formats, and those that do not open are left out (Microphones,
// for the operator, and the choice of a default); without, the listing
// only reads names, which is all a capture needs to find a named device
// and is cheap enough to repeat before every capture run.
func hostDrivers(probe bool) []driver.Driver {
	ctx, err := newContext(nil)
	if err != nil {
		return nil
	}
	defer freeContext(ctx)
	devs, err := ctx.Devices(malgo.Capture)
	if err != nil {
		return nil
	}
	out := make([]driver.Driver, 0, len(devs))
	for _, d := range devs {
		h := &hostMic{id: d.ID, state: driver.StateClosed}
		name, isDefault := d.Name(), d.IsDefault != 0
		if probe {
			info, err := ctx.DeviceInfo(malgo.Capture, d.ID, malgo.Shared)
			if err != nil {
				continue
			}
			h.formats = info.Formats
			name, isDefault = info.Name(), isDefault || info.IsDefault != 0
		}
		h.info = driver.Info{Label: d.ID.String(), DeviceType: driver.Microphone, Priority: driver.PriorityNormal, Name: name}
		if isDefault {
			h.info.Priority = driver.PriorityHigh
		}
		out = append(out, h)
	}
	return out
}

// hostMic is one capture device of the host (PulseAudio, ALSA or JACK
// through miniaudio), labelled as mediadevices labels it (the hex of the
// backend's device id) so that configured names keep matching. Open
// creates the context, AudioRecord starts the device and Close releases
// both.
type hostMic struct {
	id      malgo.DeviceID
	info    driver.Info
	formats []malgo.DataFormat

	mu     sync.Mutex
	state  driver.State
	ctx    *malgo.AllocatedContext
	dev    *malgo.Device
	chunks chan []byte   // the device's callback to the reader
	done   chan struct{} // closed by Close: the callback stops sending
}

var _ driver.AudioRecorder = (*hostMic)(nil)

// as is the same device opened by another id: an ALSA name for it that the
// listing does not give (alsaname.go).
func (h *hostMic) as(id malgo.DeviceID) *hostMic {
	info := h.info
	info.Label = id.String()
	return &hostMic{id: id, info: info, formats: h.formats, state: driver.StateClosed}
}

func (h *hostMic) ID() string        { return h.info.Label }
func (h *hostMic) Info() driver.Info { return h.info }
func (h *hostMic) Status() driver.State {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.state
}

func (h *hostMic) Open() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx != nil {
		return errors.New("audio: microphone already open")
	}
	ctx, err := newContext(nil)
	if err != nil {
		return err
	}
	h.ctx, h.state = ctx, driver.StateOpened
	return nil
}

func (h *hostMic) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.dev != nil {
		close(h.done) // a callback blocked on a full channel returns
		h.dev.Uninit()
		h.dev = nil
		close(h.chunks) // the reader sees io.EOF
	}
	if h.ctx != nil {
		freeContext(h.ctx)
		h.ctx = nil
	}
	h.state = driver.StateClosed
	return nil
}

// Properties offers one format: 16-bit mono at the device's own rate
// (SampleRate 0). The layers split the conversion so that each does what
// it does well: miniaudio converts the sample format (S24_3LE, S32, float
// and the like to 16-bit, exactly but for the bits below 16 that a
// microphone's noise floor fills anyway) and down-mixes, while the rate is
// left alone, because miniaudio's own resampler is linear and aliases;
// the capture resamples to 48 kHz with libspeexdsp instead (resample.go).
// ALSA's plug layer converts nothing either (see AudioRecord), so one
// conversion happens in one known place, unless the device offers only
// formats miniaudio cannot read.
func (h *hostMic) Properties() []prop.Media {
	return []prop.Media{{Audio: prop.Audio{
		ChannelCount:  Channels,
		SampleSize:    2,
		IsBigEndian:   binary.NativeEndian.Uint16([]byte{0, 1}) == 1,
		IsInterleaved: true,
		Latency:       FrameDuration,
	}}}
}

// nativeRates lists the distinct sample rates of the device's native
// formats, as probed by hostDrivers(true); empty when not probed or when
// the backend takes any rate.
func (h *hostMic) nativeRates() []int {
	var rates []int
	for _, f := range h.formats {
		if r := int(f.SampleRate); r > 0 && !slices.Contains(rates, r) {
			rates = append(rates, r)
		}
	}
	slices.Sort(rates)
	return rates
}

// AudioRecord starts the device in p's format and returns a reader of its
// periods; it ends with io.EOF once Close has run.
func (h *hostMic) AudioRecord(p prop.Media) (mdaudio.Reader, error) {
	dec, err := wave.NewDecoder(&wave.RawFormat{SampleSize: p.SampleSize, IsFloat: p.IsFloat, Interleaved: true})
	if err != nil {
		return nil, err
	}
	cfg := malgo.DefaultDeviceConfig(malgo.Capture)
	cfg.PerformanceProfile = malgo.LowLatency
	cfg.Capture.Channels = uint32(p.ChannelCount)
	// 0 is the device's own rate: miniaudio then opens the device at it
	// (ALSA: the native rate nearest 48 kHz, with ALSA's resampling off;
	// PulseAudio: the source's rate) and does not resample.
	cfg.SampleRate = uint32(p.SampleRate)
	cfg.PeriodSizeInMilliseconds = uint32(p.Latency / time.Millisecond)
	cfg.Capture.Format = malgo.FormatS16
	if p.IsFloat {
		cfg.Capture.Format = malgo.FormatF32
	}
	cfg.Alsa.NoAutoFormat = 1 // miniaudio converts the format, not ALSA's plug
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ctx == nil {
		return nil, errors.New("audio: microphone not open")
	}
	if h.dev != nil {
		return nil, ErrRunning
	}
	// malgo hands the id over in C memory it does not free.
	id := h.id.Pointer()
	defer cfree(id)
	cfg.Capture.DeviceID = id
	chunks, done := make(chan []byte, 1), make(chan struct{})
	callbacks := malgo.DeviceCallbacks{
		Data: func(_, in []byte, _ uint32) {
			// in is miniaudio's buffer, reused after the callback returns.
			select {
			case chunks <- append([]byte(nil), in...):
			case <-done:
			}
		},
	}
	dev, err := malgo.InitDevice(h.ctx.Context, cfg, callbacks)
	if err != nil && cfg.Alsa.NoAutoFormat != 0 {
		// A format miniaudio cannot read (S24_LE, 24 bits in 4 bytes, as
		// some I2S codecs offer): ALSA's plug layer converts it after all.
		cfg.Alsa.NoAutoFormat = 0
		dev, err = malgo.InitDevice(h.ctx.Context, cfg, callbacks)
	}
	if err != nil {
		return nil, err
	}
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return nil, err
	}
	h.dev, h.chunks, h.done, h.state = dev, chunks, done, driver.StateRunning
	// What the device was opened at, which with rate 0 is its own.
	channels, rate := int(dev.CaptureChannels()), int(dev.SampleRate())
	return mdaudio.ReaderFunc(func() (wave.Audio, func(), error) {
		chunk, ok := <-chunks
		if !ok {
			return nil, func() {}, io.EOF
		}
		a, err := dec.Decode(binary.NativeEndian, chunk, channels)
		if err != nil {
			return nil, func() {}, fmt.Errorf("audio: microphone data: %w", err)
		}
		switch a := a.(type) {
		case *wave.Int16Interleaved:
			a.Size.SamplingRate = rate
		case *wave.Float32Interleaved:
			a.Size.SamplingRate = rate
		}
		return a, func() {}, nil
	}), nil
}
