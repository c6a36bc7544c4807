package audio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/mediadevices/pkg/codec"
	"github.com/pion/mediadevices/pkg/driver"
)

// DefaultQueue is how many packets (5 s of audio) a Mic keeps for a reader
// that falls behind before it drops the oldest.
const DefaultQueue = 250

// stopGrace bounds the wait for the frame in flight, and any backlog, when
// a capture stops. A working device delivers a frame within a period
// (20 ms); past the grace the device is closed under the reader, which
// ends a read stuck on a device that went away.
const stopGrace = 500 * time.Millisecond

// maxCatchUp bounds how long a stopping capture reads out a backlog.
const maxCatchUp = 2 * time.Second

// MicOptions configure a Mic. The zero value captures from the default host
// microphone.
type MicOptions struct {
	// Device is "" for the default host microphone, TestDevice for
	// mediadevices' test tone, or a device's ID, mediadevices label or name
	// as Microphones lists them. A host microphone is looked up again at
	// every Start, so one plugged in (or back in) later is found.
	Device string
	// Driver, when set, is used instead of looking up Device: a
	// mediadevices driver that also implements driver.AudioRecorder
	// (tests wrap one to watch it open and close).
	Driver  driver.Driver
	Encoder EncoderOptions
	// Queue is the number of packets kept for a slow reader; 0 means
	// DefaultQueue. Beyond it the oldest packet is dropped and counted.
	Queue  int
	Logger *slog.Logger // nil: discard
	// Echo, when set, cleans every capture run (echo cancellation, noise
	// suppression, gain) before encoding. The Mic does not close it.
	Echo *Processor
}

// MicStats count a Mic's work since NewMic.
type MicStats struct {
	Runs    int // completed or current Start..Stop runs
	Packets int // packets encoded
	Dropped int // packets dropped because no reader kept up
	// Rate is the sample rate in Hz the device delivered in the last run,
	// 0 before one; audio at another rate than SampleRate was resampled.
	Rate int
}

// Mic captures a microphone as 20 ms Opus packets. The device is opened by
// Start and closed by Stop, so it is in use only during a capture run (an
// explicit audio turn, or an engagement without explicit turns).
//
// Packets of all runs go to one queue read by ReadPacket: the transport
// keeps a single reader for the whole session, which blocks between runs.
type Mic struct {
	log      *slog.Logger
	want     string // MicOptions.Device
	fixed    bool   // a given driver or TestDevice: never looked up again
	encoder  encoderSettings
	maxQueue int
	echo     *Processor

	mu      sync.Mutex
	drv     driver.Driver        // the device of the last lookup
	rec     driver.AudioRecorder // drv as a recorder
	name    string               // drv's ID
	closed  bool
	run     *micRun
	queue   []Packet
	failed  error         // why the last run ended by itself; told by the next Stop
	waiting int           // readers blocked in ReadPacket
	changed chan struct{} // closed and replaced on every state change
	arrived chan struct{} // same, when a reader starts waiting (for Drain)
	stats   MicStats
}

// micRun is one Start..Stop capture; its pump goroutine is owned by the
// run and waited for by whoever stops it.
type micRun struct {
	name     string // the device's ID, for logs and errors
	enc      codec.ReadCloser
	stop     chan struct{} // closed to ask the pump to end after its frame
	done     chan struct{} // closed when the pump has released everything
	stopOnce sync.Once
	closeDev func() error // once: the pump and a stuck Stop may both call it
	stalled  atomic.Bool  // Stop had to close the device under the pump
	progress atomic.Int64 // packets pushed; Stop waits while it grows
	started  time.Time    // when the device started delivering
	stopAt   time.Time    // when Stop was asked; written before stop closes
	err      error        // why the run ended, if not Stop; read after done
}

// NewMic resolves the microphone without opening it, so that a missing
// device is reported when the Mic is made. Start looks it up again.
func NewMic(opts *MicOptions) (*Mic, error) {
	if opts == nil {
		opts = &MicOptions{}
	}
	es, err := opts.Encoder.settings()
	if err != nil {
		return nil, err
	}
	if opts.Queue < 0 {
		return nil, fmt.Errorf("%w: negative queue length", ErrBadConfig)
	}
	m := &Mic{
		log:      opts.Logger,
		want:     opts.Device,
		fixed:    opts.Driver != nil || opts.Device == TestDevice,
		encoder:  es,
		maxQueue: opts.Queue,
		echo:     opts.Echo,
		changed:  make(chan struct{}),
		arrived:  make(chan struct{}),
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.maxQueue == 0 {
		m.maxQueue = DefaultQueue
	}
	var c candidate
	if opts.Driver != nil {
		c = describe(opts.Driver)
	} else if c, err = selectMic(listFor(opts.Device), opts.Device); err != nil {
		return nil, err
	}
	if err := m.use(c); err != nil {
		return nil, err
	}
	return m, nil
}

// SetEcho makes p (nil: none) the Processor of the next capture runs, as
// MicOptions.Echo does from the start; ErrRunning during a run.
func (m *Mic) SetEcho(p *Processor) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.run != nil {
		return ErrRunning
	}
	m.echo = p
	return nil
}

// CancelsEcho reports whether the Mic's captures go through an echo
// canceller.
func (m *Mic) CancelsEcho() bool {
	if m == nil {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.echo.Cancels()
}

// Name is the ID of the microphone in use, as last looked up.
func (m *Mic) Name() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.name
}

// Start opens the device and captures until Stop, Close or the end of ctx,
// whichever comes first. Starting a running Mic returns ErrRunning.
func (m *Mic) Start(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.closed:
		return ErrClosed
	case m.run != nil:
		return ErrRunning
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("audio: start microphone: %w", err)
	}
	if err := m.lookUp(); err != nil {
		return err
	}
	if err := m.drv.Open(); err != nil {
		return m.deviceError(err)
	}
	// Closing the driver on every failure below keeps "open only while
	// running" true for failed starts as well.
	p, err := pickProp(m.drv.Properties())
	if err != nil {
		m.drv.Close()
		return fmt.Errorf("audio: microphone %q: %w", m.name, err)
	}
	r, err := m.rec.AudioRecord(p)
	if err != nil {
		m.drv.Close()
		return m.deviceError(err)
	}
	name := m.name
	enc, err := newOpusEncoder(r, m.encoder, m.echo, func(rate int) { m.deviceRate(name, rate) })
	if err != nil {
		m.drv.Close()
		return err
	}
	run := &micRun{
		name:     name,
		enc:      enc,
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
		closeDev: sync.OnceValue(m.drv.Close),
		started:  time.Now(),
	}
	m.run = run
	m.stats.Runs++
	m.broadcast()
	m.log.Debug("audio: microphone started", "device", name)
	go m.pump(ctx, run)
	return nil
}

func (m *Mic) deviceError(err error) error {
	if describe(m.drv).dev.Test {
		return fmt.Errorf("audio: open microphone %q: %w", m.name, err)
	}
	return deviceError("microphone", m.name, err)
}

// pump moves encoded packets into the queue until asked to stop, then
// releases the device and the encoder.
func (m *Mic) pump(ctx context.Context, run *micRun) {
	defer close(run.done)
	n := 0
	waited := 0 // consecutive catch-up reads that had to wait for the device
loop:
	for {
		catchingUp := false
		select {
		case <-ctx.Done():
			break loop
		case <-run.stop:
			// Audio recorded before the release belongs to the turn: if
			// the pump fell behind (a busy CPU), it reads out what the
			// device already holds before closing it.
			if time.Duration(n)*FrameDuration >= run.stopAt.Sub(run.started) {
				break loop
			}
			catchingUp = true
		default:
		}
		t0 := time.Now()
		data, release, err := run.enc.Read()
		if err != nil {
			switch {
			case run.stalled.Load():
				run.err = fmt.Errorf("%w (microphone %q, after %d packets)", ErrStalled, run.name, n)
			case !errors.Is(err, io.EOF):
				run.err = fmt.Errorf("audio: microphone %q failed after %d packets: %w", run.name, n, err)
			}
			if run.err != nil {
				m.log.Warn("audio: capture ended", "device", run.name, "packets", n, "err", err)
			}
			break loop
		}
		m.push(Packet{Data: append([]byte(nil), data...), Duration: FrameDuration})
		release()
		n++
		run.progress.Add(1)
		// Reads that had to wait for the device were live audio, so there
		// is no backlog left. One slow read proves nothing on a busy CPU;
		// three in a row, or a catch-up past maxCatchUp, ends it.
		if catchingUp {
			if time.Since(t0) > FrameDuration/2 {
				waited++
			} else {
				waited = 0
			}
			if waited >= 3 || time.Since(run.stopAt) > maxCatchUp {
				break loop
			}
		}
	}
	devErr := run.closeDev()
	run.enc.Close()
	if run.err == nil && devErr != nil {
		run.err = fmt.Errorf("audio: close microphone %q: %w", run.name, devErr)
	}
	m.mu.Lock()
	if m.run == run {
		m.run = nil
	}
	m.failed = run.err
	m.broadcast()
	m.mu.Unlock()
	m.log.Debug("audio: microphone stopped", "device", run.name, "packets", n)
}

func (m *Mic) push(p Packet) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	if len(m.queue) >= m.maxQueue {
		m.queue[0] = Packet{}
		m.queue = m.queue[1:]
		m.stats.Dropped++
	}
	m.queue = append(m.queue, p)
	m.stats.Packets++
	m.broadcast()
}

// broadcast wakes everyone waiting for a state change. m.mu must be held.
func (m *Mic) broadcast() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// Stop ends the capture run: the frame in flight, and any audio the
// device recorded before the call that capture had not caught up with, is
// still encoded and queued; then the device is closed (its LED goes off)
// before Stop returns. Packets already queued stay readable. The error says why the
// run ended early, if it did (the device failed or went away), also when
// it had already ended by itself; otherwise stopping a Mic that is not
// running does nothing.
func (m *Mic) Stop() error {
	m.mu.Lock()
	run := m.run
	if run == nil {
		err := m.failed
		m.failed = nil
		m.mu.Unlock()
		return err
	}
	m.mu.Unlock()
	return m.end(run)
}

func (m *Mic) end(run *micRun) error {
	run.stopOnce.Do(func() {
		run.stopAt = time.Now()
		close(run.stop)
	})
	// The grace runs while the pump makes no progress: catching up a
	// backlog on a busy CPU is progress, a device that went away is not.
	last := run.progress.Load()
	grace := time.NewTimer(stopGrace)
	defer grace.Stop()
wait:
	for {
		select {
		case <-run.done:
			break wait
		case <-grace.C:
			if now := run.progress.Load(); now != last {
				last = now
				grace.Reset(stopGrace)
				continue
			}
			m.log.Warn("audio: microphone delivered no frame while stopping; closing it under the reader", "device", run.name)
			run.stalled.Store(true)
			run.closeDev()
			<-run.done
			break wait
		}
	}
	m.mu.Lock()
	m.failed = nil
	m.mu.Unlock()
	return run.err
}

// Running reports whether a capture run is in progress.
func (m *Mic) Running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.run != nil
}

// Stats returns the counters since Open.
func (m *Mic) Stats() MicStats {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.stats
}

// ReadPacket returns the next packet, blocking while none is queued (also
// between runs) until one is, ctx ends, or the Mic is closed (ErrClosed).
func (m *Mic) ReadPacket(ctx context.Context) (Packet, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		if m.closed {
			return Packet{}, ErrClosed
		}
		if len(m.queue) > 0 {
			p := m.queue[0]
			m.queue[0] = Packet{}
			m.queue = m.queue[1:]
			m.broadcast()
			return p, nil
		}
		changed := m.changed
		m.waiting++
		close(m.arrived)
		m.arrived = make(chan struct{})
		m.mu.Unlock()
		var err error
		select {
		case <-changed:
		case <-ctx.Done():
			err = ctx.Err()
		}
		m.mu.Lock()
		m.waiting--
		if err != nil {
			return Packet{}, err
		}
	}
}

// Drain waits until the run has stopped, every queued packet has been
// read, and a reader has come back to ReadPacket, so the last packet has
// been handed on (written to the track) by a reader that loops. This is
// the point at which a turn can be committed: commit after Stop and Drain.
func (m *Mic) Drain(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		if m.closed {
			return ErrClosed
		}
		if m.run == nil && len(m.queue) == 0 && m.waiting > 0 {
			return nil
		}
		changed, arrived := m.changed, m.arrived
		m.mu.Unlock()
		var err error
		select {
		case <-changed:
		case <-arrived:
		case <-ctx.Done():
			err = ctx.Err()
		}
		m.mu.Lock()
		if err != nil {
			return fmt.Errorf("audio: drain microphone: %w", err)
		}
	}
}

// Discard drops the queued packets and returns how many there were: for a
// cancelled turn, whose audio the agent will throw away anyway.
func (m *Mic) Discard() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.queue)
	m.queue = nil
	m.broadcast()
	return n
}

// Close stops a run in progress, drops queued packets and makes blocked and
// later ReadPacket calls return ErrClosed. Safe to call twice.
func (m *Mic) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	run := m.run
	m.queue = nil
	m.broadcast()
	m.mu.Unlock()
	if run == nil {
		return nil
	}
	return m.end(run)
}
