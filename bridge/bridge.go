package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/backoff"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// TagReader is what the bridge needs of an NFC reader; *nfc.Dev has it.
type TagReader interface {
	ScanWith(ctx context.Context, window time.Duration, o *nfc.ScanOptions) (nfc.Scan, error)
	Status() nfc.Status
}

// Camera takes one photo and returns it as a bounded JPEG observation
// image; Present reports whether a camera is attached now.
type Camera interface {
	Photo(ctx context.Context) (*protocol.Image, error)
	Present() bool
}

// Options configures a Bridge. Nil fields are absent hardware or defaults.
type Options struct {
	AgentURL string
	Token    string
	Policy   *client.Policy

	Reader TagReader // nil: no reader configured
	// Mic and Speaker carry voice with agents that own it over WebRTC;
	// nil: none (the session still runs, without audio).
	Mic     *audio.Mic
	Speaker audio.Sink
	// OpenMic, when Mic is nil, resolves the microphone when the first
	// WebRTC session starts, so that a kiosk serving text agents never
	// loads the sound system (audio.LazyMic.Open fits); an error means no
	// microphone. The caller closes what it returns.
	OpenMic func() (*audio.Mic, error)
	Camera  Camera        // nil: no camera configured
	Buttons button.Source // nil: no buttons (only agent requests then wait)
	// Texts carries typed user turns (the demo, a technician's keyboard, the
	// kiosk page); nil: none.
	Texts <-chan string
	LED   button.Indicator

	// Modalities enabled by configuration (default: both).
	Modalities  []protocol.Modality
	Window      time.Duration // armed window (default 15 s)
	ScanIntent  string        // default "identify"
	PhotoIntent string        // default "identify"

	// EngagementIdle ends a microphone engagement (agents without explicit
	// audio turns) after this long without an agent run or an observation
	// (default 20 s).
	EngagementIdle time.Duration

	// HardwareCheck is how often the hardware present is compared with the
	// session's offer (default 2 s); a change starts a new session.
	HardwareCheck time.Duration

	ReconnectMin time.Duration // default 1 s
	ReconnectMax time.Duration // default 60 s

	// Out receives the conversation for the person (default: discard).
	Out io.Writer
	// Display, if set, receives every Notice too (the kiosk page). It is
	// called from the bridge's goroutine and must not block.
	Display func(notice.Notice)
	// Speak, if set, says text aloud (local TTS); it must return promptly.
	Speak func(text string)
	// Logger is the daemon's log; Audit receives one line per observation
	// that left the device (default: Logger).
	Logger *slog.Logger
	Audit  *slog.Logger
	// Metrics, if set, counts what happens.
	Metrics *Metrics
	// Now is the clock (default time.Now).
	Now func() time.Time
	// OnState, if set, is told of connection changes (for sd_notify STATUS).
	OnState func(State)
}

// State is what the bridge reports about its connection.
type State struct {
	Connected  bool
	Agent      string // origin
	Modalities []protocol.Modality
	Err        error // why it is not connected
}

// Bridge runs the daemon's session loop.
type Bridge struct {
	o       Options
	log     *slog.Logger
	audit   *slog.Logger
	presses chan button.Event
	led     *listenLED // o.LED, which it wraps
	wg      sync.WaitGroup
	micOnce sync.Once
	micDev  *audio.Mic // see mic
}

// New returns a Bridge; Run starts it.
func New(o Options) *Bridge {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Audit == nil {
		o.Audit = o.Logger
	}
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Modalities == nil {
		o.Modalities = []protocol.Modality{protocol.NFC, protocol.Photo}
	}
	if o.HardwareCheck == 0 {
		o.HardwareCheck = 2 * time.Second
	}
	if o.Window == 0 {
		o.Window = 15 * time.Second
	}
	if o.ScanIntent == "" {
		o.ScanIntent = "identify"
	}
	if o.PhotoIntent == "" {
		o.PhotoIntent = "identify"
	}
	if o.LED == nil {
		o.LED = button.NopIndicator{}
	}
	if o.EngagementIdle <= 0 {
		o.EngagementIdle = 20 * time.Second
	}
	led := &listenLED{Indicator: o.LED}
	o.LED = led
	return &Bridge{o: o, log: o.Logger, audit: o.Audit, presses: make(chan button.Event, 16), led: led}
}

// Run connects to the agent and serves sessions until ctx is done,
// reconnecting with backoff. It returns nil after a clean shutdown (the
// session ended with session.end).
func (b *Bridge) Run(ctx context.Context) error {
	if b.o.Buttons != nil {
		b.wg.Add(1)
		go b.readButtons(ctx)
	}
	defer b.wg.Wait()
	bo := backoff.New(&backoff.Options{Min: b.o.ReconnectMin, Max: b.o.ReconnectMax})
	for {
		established, err := b.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errHardwareChanged) {
			continue
		}
		if established {
			bo.Reset()
		}
		b.state(State{Err: err})
		b.o.Metrics.reconnect()
		delay := bo.Next()
		b.log.Warn("agent session ended; reconnecting", "err", err, "in", delay.Round(time.Millisecond), "attempt", bo.Failures())
		b.show(notice.Notice{Kind: notice.Disconnected, Text: fmt.Sprintf("%v — retrying in %s", err, delay.Round(100*time.Millisecond))})
		if !b.wait(ctx, delay) {
			return nil
		}
	}
}

// wait sleeps between sessions; presses meanwhile are answered, not queued
// for the next session (a stale press must never arm the reader later).
func (b *Bridge) wait(ctx context.Context, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case <-timer.C:
			return true
		case ev := <-b.presses:
			if ev.Pressed && !ev.Long {
				b.info("not connected to the agent yet; press again in a moment")
			}
		case <-b.o.Texts:
			b.info("not connected to the agent yet; nothing was sent")
		case <-ctx.Done():
			return false
		}
	}
}

func (b *Bridge) state(s State) {
	if b.o.OnState != nil {
		b.o.OnState(s)
	}
}

// readButtons forwards presses to the session loop. It is owned by Run.
func (b *Bridge) readButtons(ctx context.Context) {
	defer b.wg.Done()
	for {
		ev, err := b.o.Buttons.Read(ctx)
		if err != nil {
			if ctx.Err() == nil && !errors.Is(err, button.ErrClosed) {
				b.log.Error("buttons stopped", "err", err)
			}
			return
		}
		select {
		case b.presses <- ev:
		case <-ctx.Done():
			return
		default:
			b.log.Warn("button press dropped: the bridge is busy", "control", ev.Control)
		}
	}
}

// present returns the enabled modalities whose hardware is there now.
func (b *Bridge) present() []protocol.Modality {
	var out []protocol.Modality
	for _, m := range b.o.Modalities {
		switch m {
		case protocol.NFC:
			if b.o.Reader != nil && b.o.Reader.Status().State != nfc.StateNoReader {
				out = append(out, m)
			}
		case protocol.Photo:
			if b.o.Camera != nil && b.o.Camera.Present() {
				out = append(out, m)
			}
		}
	}
	return slices.Clip(out)
}

// opusDecoder decodes the agent's voice for the speaker.
func opusDecoder() (client.Decoder, error) { return audio.NewDecoder() }
