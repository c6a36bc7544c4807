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
	"github.com/agentcall/acbridge/health"
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
	led     *listenLED // o.Devices.LED, which it wraps
	wg      sync.WaitGroup
	up      time.Time  // when the last session was established
	voiceIn *heardSink // the Speaker, noting the agent's voice; nil without one
	micMu   sync.Mutex
	micDev  *audio.Mic // see mic
	limits  *limits
	red     *redact.Secrets // the token, for every output (see clean)
	// failing is, by collection kind, the problem its last collection
	// failed with, current in Health until one succeeds; the session
	// loop alone touches it.
	failing map[string]*health.Warnable
}

// New returns a Bridge; Run starts it. It panics on a Policy that was not
// resolved from configuration (Policy.Check): that is a wiring mistake,
// not something a kiosk meets in the field.
func New(o Options) *Bridge {
	if err := o.Policy.Check(); err != nil {
		panic(err)
	}
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
	if o.Policy.HardwareCheck == 0 {
		o.Policy.HardwareCheck = defaultHardwareCheck
	}
	if o.Devices.LED == nil {
		o.Devices.LED = button.NopIndicator{}
	}
	led := &listenLED{Indicator: o.Devices.LED}
	o.Devices.LED = led
	// Errors and agent text reach the logs too: the token is taken out
	// there as on the screen.
	red := redact.New(o.Agent.Token)
	o.Logger, o.Audit = slog.New(red.Handler(o.Logger.Handler())), slog.New(red.Handler(o.Audit.Handler()))
	b := &Bridge{o: o, log: o.Logger, audit: o.Audit, presses: make(chan button.Event, 16), led: led, limits: newLimits(), red: red, failing: map[string]*health.Warnable{}}
	if o.Devices.Speaker != nil {
		b.voiceIn = &heardSink{Sink: o.Devices.Speaker, now: o.Now}
	}
	return b
}

// Run connects to the agent and serves sessions until ctx is done,
// reconnecting with backoff. It returns nil after a clean shutdown (the
// session ended with session.end).
func (b *Bridge) Run(ctx context.Context) error {
	if b.o.Devices.Buttons != nil {
		b.wg.Add(1)
		go b.readButtons(ctx)
	}
	defer b.wg.Wait()
	bo := backoff.New(&backoff.Options{Min: b.o.Policy.ReconnectMin, Max: b.o.Policy.ReconnectMax})
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
		ev, err := b.o.Devices.Buttons.Read(ctx)
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
	for _, m := range b.o.Policy.Modalities {
		switch m {
		case protocol.NFC:
			if b.o.Devices.Reader != nil && b.o.Devices.Reader.Status().State != nfc.StateNoReader {
				out = append(out, m)
			}
		case protocol.Photo:
			if b.o.Devices.Camera != nil && b.o.Devices.Camera.Present() {
				out = append(out, m)
			}
		}
	}
	return slices.Clip(out)
}

// opusDecoder decodes the agent's voice for the speaker.
func opusDecoder() (client.Decoder, error) { return audio.NewDecoder() }
