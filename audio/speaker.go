package audio

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/gen2brain/malgo"
)

// DefaultSpeakerBuffer is how much audio a Speaker queues ahead of the
// device before Write blocks: enough to ride out scheduling hiccups on a
// Raspberry Pi, short enough that a cancelled reply stops promptly.
const DefaultSpeakerBuffer = 300 * time.Millisecond

// SpeakerOptions configure a Speaker. The zero value plays on the default
// output device of the first sound system found.
type SpeakerOptions struct {
	// Device is "" for the backend's default output, or a playback
	// device's ID (an ALSA PCM name such as "hw:CARD=Device,DEV=0") or
	// name.
	Device string
	// Backend is "" to try PulseAudio (or PipeWire's pulse server), ALSA
	// and JACK in that order, one of "pulse", "alsa", "jack", or "null":
	// miniaudio's null device, which consumes audio in real time and
	// plays nothing (tests, machines without a sound card).
	Backend string
	Buffer  time.Duration // 0 means DefaultSpeakerBuffer
	Logger  *slog.Logger  // nil: discard
	// Volume, when set, scales what is played (volume and ducking).
	Volume *Volume
	// Echo, when set, receives what is handed to the device (after
	// Volume, silence included) as its echo reference.
	Echo *Processor
	// Monitor, when set, is called on the device's thread with each
	// buffer handed to the device (after Volume, silence included) and
	// the time it was handed over: a tap for measuring playout, such as
	// the delay from a talker's mouth to this speaker (OnsetDetector). It
	// must return at once and not keep pcm.
	Monitor func(pcm []int16, at time.Time)
}

// SpeakerStats count a Speaker's playback.
type SpeakerStats struct {
	Played int // samples handed to the device
	// Underruns counts the times the queue ran dry in the middle of a
	// stretch of audio (more came within 250 ms), see playout.
	Underruns int
}

// Speaker plays PCM on an output device through miniaudio
// (github.com/gen2brain/malgo), which converts 48 kHz mono 16-bit to the
// device's own format. The device stays open from OpenSpeaker to Close.
type Speaker struct {
	log     *slog.Logger
	ctx     *malgo.AllocatedContext
	dev     *malgo.Device
	vol     *Volume
	echo    *Processor
	monitor func([]int16, time.Time)
	clock   deviceClock // the Monitor's times, on the device's thread

	mu      sync.Mutex
	ring    []int16 // circular queue of samples not yet played
	head, n int
	playing bool // audio was written since the queue last ran dry
	started bool // the device takes from the queue (the margin was reached)
	po      playout
	closed  bool
	stopped bool          // the device stopped by itself (unplugged)
	changed chan struct{} // closed and replaced when space frees or state changes
	stats   SpeakerStats

	closeOnce sync.Once
}

var _ Sink = (*Speaker)(nil)

// backendNull is miniaudio's ma_backend_null. malgo v0.11.24's BackendNull
// (13) is off by one: its list lacks ma_backend_custom, so 13 names the
// custom backend and initialising it fails with "No backend".
const backendNull = malgo.Backend(14)

var backendsByName = map[string][]malgo.Backend{
	"":      {malgo.BackendPulseaudio, malgo.BackendAlsa, malgo.BackendJack},
	"pulse": {malgo.BackendPulseaudio},
	"alsa":  {malgo.BackendAlsa},
	"jack":  {malgo.BackendJack},
	"null":  {backendNull},
}

// OpenSpeaker opens the output device and starts it (playing silence until
// Write).
func OpenSpeaker(opts *SpeakerOptions) (*Speaker, error) {
	if opts == nil {
		opts = &SpeakerOptions{}
	}
	backends, ok := backendsByName[opts.Backend]
	if !ok {
		return nil, fmt.Errorf("%w: unknown sound backend %q (want pulse, alsa, jack or null)", ErrBadConfig, opts.Backend)
	}
	buffer := opts.Buffer
	if buffer == 0 {
		buffer = DefaultSpeakerBuffer
	}
	if buffer < FrameDuration || buffer > 10*time.Second {
		return nil, fmt.Errorf("%w: speaker buffer %v outside 20ms..10s", ErrBadConfig, buffer)
	}
	s := &Speaker{
		log:     opts.Logger,
		ring:    make([]int16, int(buffer*SampleRate/time.Second)),
		changed: make(chan struct{}),
		vol:     opts.Volume,
		echo:    opts.Echo,
		monitor: opts.Monitor,
		po:      newPlayout(buffer),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	ctx, err := newContext(backends)
	if err != nil {
		return nil, fmt.Errorf("%w (no sound system: %v)", ErrNoSpeaker, err)
	}
	s.ctx = ctx
	if err := s.openDevice(opts.Device); err != nil {
		s.freeContext()
		return nil, err
	}
	return s, nil
}

func (s *Speaker) openDevice(want string) error {
	cfg := malgo.DefaultDeviceConfig(malgo.Playback)
	cfg.Playback.Format = malgo.FormatS16
	cfg.Playback.Channels = Channels
	cfg.SampleRate = SampleRate
	cfg.PeriodSizeInMilliseconds = uint32(FrameDuration / time.Millisecond)
	name := "default"
	if want != "" {
		info, err := s.findPlayback(want)
		if err != nil {
			return err
		}
		// malgo hands the id over in C memory it does not free.
		id := info.ID.Pointer()
		defer cfree(id)
		cfg.Playback.DeviceID = id
		name = want
	}
	dev, err := malgo.InitDevice(s.ctx.Context, cfg, malgo.DeviceCallbacks{
		Data: s.fill,
		Stop: s.onStop,
	})
	if err != nil {
		return s.openError(name, err)
	}
	if err := dev.Start(); err != nil {
		dev.Uninit()
		return s.openError(name, err)
	}
	s.dev = dev
	s.log.Debug("audio: speaker open", "device", name)
	return nil
}

func (s *Speaker) findPlayback(want string) (malgo.DeviceInfo, error) {
	infos, err := s.ctx.Devices(malgo.Playback)
	if err != nil {
		return malgo.DeviceInfo{}, fmt.Errorf("audio: list speakers: %w", err)
	}
	var names []string
	for _, info := range infos {
		id := decodeLabel(info.ID.String())
		if id == want || info.ID.String() == want || info.Name() == want {
			return info, nil
		}
		names = append(names, fmt.Sprintf("%q", id))
	}
	for _, info := range infos {
		if sameALSADevice(decodeLabel(info.ID.String()), want) {
			if id, ok := alsaDeviceID(want); ok {
				info.ID = id
				return info, nil
			}
		}
	}
	return malgo.DeviceInfo{}, fmt.Errorf("%w (wanted %q; present: %s)", ErrNoSpeaker, want, strings.Join(names, ", "))
}

func (s *Speaker) openError(name string, err error) error {
	if infos, lerr := s.ctx.Devices(malgo.Playback); lerr == nil && !hasRealDevice(infos) {
		return fmt.Errorf("%w (open %q: %v)", ErrNoSpeaker, name, err)
	}
	return deviceError("speaker", name, err)
}

func hasRealDevice(infos []malgo.DeviceInfo) bool {
	for _, info := range infos {
		if decodeLabel(info.ID.String()) != "null" && !strings.HasPrefix(info.Name(), "NULL ") {
			return true
		}
	}
	return false
}

// fill runs on miniaudio's device thread: it must never block for long,
// so it only copies from the queue and pads with silence.
func (s *Speaker) fill(out, _ []byte, frames uint32) {
	if len(out) < 2 {
		return
	}
	// miniaudio delivers native-endian samples, the layout of []int16.
	dst := unsafe.Slice((*int16)(unsafe.Pointer(&out[0])), len(out)/2)
	s.mu.Lock()
	// After the lock: a Write that held it hands its samples over now,
	// not when this callback began.
	now := time.Now()
	if !s.started && s.n > 0 {
		s.started = s.po.ready(now, samplesDuration(s.n))
	}
	k := 0
	if s.started {
		k = min(s.n, len(dst))
	}
	for i := 0; i < k; i++ {
		dst[i] = s.ring[(s.head+i)%len(s.ring)]
	}
	s.head = (s.head + k) % len(s.ring)
	s.n -= k
	s.stats.Played += k
	if s.started && k < len(dst) {
		s.started = false
		if s.playing {
			s.playing = false
			s.po.ranDry(now)
		}
	}
	if k > 0 {
		s.broadcast()
	}
	echo := s.echo
	s.mu.Unlock()
	clear(dst[k:])
	s.vol.apply(dst[:k])
	echo.Far(dst)
	if s.monitor != nil {
		s.monitor(dst, s.clock.at(now, len(dst)))
	}
}

// SetEcho makes p (nil: none) the echo canceller that receives what the
// speaker plays from now on, as SpeakerOptions.Echo does from the start.
func (s *Speaker) SetEcho(p *Processor) {
	s.mu.Lock()
	s.echo = p
	s.mu.Unlock()
}

func (s *Speaker) onStop() {
	s.mu.Lock()
	if !s.closed {
		s.stopped = true
		s.log.Warn("audio: speaker stopped by the sound system (unplugged?)")
	}
	s.broadcast()
	s.mu.Unlock()
}

func (s *Speaker) broadcast() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// Write queues pcm (48 kHz mono) for playback, blocking while the queue is
// full, which paces a faster producer to real time. Close unblocks it.
func (s *Speaker) Write(pcm []int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case s.closed:
			return ErrClosed
		case s.stopped:
			return fmt.Errorf("audio: speaker stopped: the output device went away; reconnect it")
		}
		k := min(len(pcm), len(s.ring)-s.n)
		if k > 0 && !s.playing {
			s.resumed(s.n == 0)
		}
		tail := (s.head + s.n) % len(s.ring)
		for i := 0; i < k; i++ {
			s.ring[(tail+i)%len(s.ring)] = pcm[i]
		}
		s.n += k
		if k > 0 {
			s.playing = true
		}
		pcm = pcm[k:]
		if len(pcm) == 0 {
			return nil
		}
		changed := s.changed
		s.mu.Unlock()
		<-changed
		s.mu.Lock()
	}
}

// resumed notes a new stretch of audio (called with s.mu held): an
// underrun if the previous one ran dry just before.
func (s *Speaker) resumed(wasEmpty bool) {
	now := time.Now()
	if !s.po.written(now, wasEmpty) {
		return
	}
	s.stats.Underruns++
	underrunsTotal.Add(1)
	if n := s.po.logDue(now); n > 0 {
		s.log.Info("audio: speaker underrun: the agent's audio came late; playback margin widened",
			"underruns", n, "margin", s.po.target, "total", s.stats.Underruns)
	}
}

func samplesDuration(n int) time.Duration { return time.Duration(n) * time.Second / SampleRate }

// Drain waits until everything written has been handed to the device.
func (s *Speaker) Drain(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.n > 0 && !s.closed && !s.stopped {
		changed := s.changed
		s.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			s.mu.Lock()
			return fmt.Errorf("audio: drain speaker: %w", ctx.Err())
		}
		s.mu.Lock()
	}
	if s.closed {
		return ErrClosed
	}
	return nil
}

// Stats returns the playback counters.
func (s *Speaker) Stats() SpeakerStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Close stops the device, drops queued audio and unblocks Write. Safe to
// call twice.
func (s *Speaker) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.broadcast()
		s.mu.Unlock()
		// Uninit waits for the device thread, so fill has returned for good.
		s.dev.Uninit()
		s.freeContext()
	})
	return nil
}

func (s *Speaker) freeContext() {
	if err := s.ctx.Uninit(); err != nil {
		s.log.Warn("audio: release sound context", "err", err)
	}
	s.ctx.Free()
}
