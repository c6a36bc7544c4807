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
	"github.com/agentcall/acbridge/internal/redact"
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
	// ICEServers and RelayOnly go to every WebRTC dial (see
	// client.WebRTCOptions).
	ICEServers []client.ICEServer
	RelayOnly  bool

	Reader TagReader // nil: no reader configured
	// Mic and Speaker carry voice with agents that own it over WebRTC;
	// nil: none (the session still runs, without audio).
	Mic     *audio.Mic
	Speaker audio.Sink
	// Volume, when set, is the Speaker's level: ducked while TALK is held
	// for push-to-talk, and during engagements when Mic cancels no echo.
	Volume *audio.Volume
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
	// StableAfter is how long a session must last before the reconnect
	// backoff starts over (default 30 s).
	StableAfter time.Duration
	// RunTimeout: a run with no event from the agent for this long gets
	// response.cancel (default 30 s). CancelGrace: a run still open this
	// long after a response.cancel ends the session (default 5 s).
	RunTimeout, CancelGrace time.Duration
	// RunBudget bounds what the agent may send in one run (nil: the
	// client's defaults).
	RunBudget *client.RunBudget

	// Out receives the conversation for the person (default: discard).
	Out io.Writer
	// Display, if set, receives every Notice too (the kiosk page). It is
	// called from the bridge's goroutine and must not block.
	Display func(notice.Notice)
	// SentRef, if set, is told each object reference before it is sent,
	// so that a display can mask it when the agent echoes it (the kiosk
	// page's Mask). It must not block.
	SentRef func(objectRef string)
	// Context, if set, gives the AG-UI Context entries sent with each turn
	// (the kiosk page's Context: the visitor's language); see
	// client.Options.Context.
	Context func() []protocol.ContextEntry
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
	up      time.Time  // when the last session was established
	voiceIn *heardSink // the Speaker, noting the agent's voice; nil without one
	micMu   sync.Mutex
	micDev  *audio.Mic // see mic
	limits  *limits
	red     *redact.Secrets // the token, for every output (see clean)
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
	if o.StableAfter == 0 {
		o.StableAfter = 30 * time.Second
	}
	if o.RunTimeout == 0 {
		o.RunTimeout = 30 * time.Second
	}
	if o.CancelGrace == 0 {
		o.CancelGrace = 5 * time.Second
	}
	if o.LED == nil {
		o.LED = button.NopIndicator{}
	}
	if o.EngagementIdle <= 0 {
		o.EngagementIdle = 20 * time.Second
	}
	led := &listenLED{Indicator: o.LED}
	o.LED = led
	// Errors and agent text reach the logs too: the token is taken out
	// there as on the screen.
	red := redact.New(o.Token)
	o.Logger, o.Audit = slog.New(red.Handler(o.Logger.Handler())), slog.New(red.Handler(o.Audit.Handler()))
	b := &Bridge{o: o, log: o.Logger, audit: o.Audit, presses: make(chan button.Event, 16), led: led, limits: newLimits(), red: red}
	if o.Speaker != nil {
		b.voiceIn = &heardSink{Sink: o.Speaker, now: o.Now}
	}
	return b
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
	var told lastingTold
	for {
		established, err := b.session(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, errHardwareChanged) {
			continue
		}
		if established && b.stable(b.up) {
			bo.Reset()
		}
		if established {
			told = lastingTold{}
		}
		b.o.Metrics.reconnect()
		if w := client.Lasting(err); w != nil {
			delay := bo.NextMax()
			b.tellLasting(&told, w, err, delay)
			if !b.wait(ctx, delay) {
				return nil
			}
			continue
		}
		told = lastingTold{}
		b.state(State{Err: err})
		delay := bo.Next()
		b.log.Warn("agent session ended; reconnecting", "err", err, "in", delay.Round(time.Millisecond), "attempt", bo.Failures())
		b.printAndDisplay(notice.Notice{Kind: notice.Disconnected, Text: fmt.Sprintf("%s — retrying in %s", why(err), delay.Round(100*time.Millisecond))})
		if !b.wait(ctx, delay) {
			return nil
		}
	}
}

// wait sleeps between sessions; presses meanwhile are answered, not queued
// for the next session (a stale press must never arm the reader later).
func (b *Bridge) wait(ctx context.Context, d time.Duration) bool {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	refuseUntil(b, wctx.Done())
	return ctx.Err() == nil
}

// why says in plain words why a session ended or did not start.
func why(err error) string {
	if client.PeerClosed(err) {
		return fmt.Sprintf("the agent closed the connection (%v)", err)
	}
	return fmt.Sprint(err)
}

func (b *Bridge) state(s State) {
	if s.Err != nil {
		// The reason may quote the agent, and ends up in sd_notify STATUS=
		// (one line per field there) and systemctl status, in the same
		// plain words as the notice on the screen.
		s.Err = errors.New(b.clean(why(s.Err)))
	}
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
