package bridge

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/audio"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/client"
	"github.com/agentcall/acbridge/health"
	"github.com/agentcall/acbridge/notice"
	"github.com/agentcall/acbridge/protocol"
)

// Options configures a Bridge: whom it talks to (Agent), what it talks
// with (Devices), by which rules (Policy), and where it reports. Nil
// reporting fields discard.
type Options struct {
	Agent   Agent
	Devices Devices
	// Policy holds the session's rules, resolved from configuration
	// (station.Policy): the bridge keeps no default of its own for any
	// of them, so that config's defaults are the only ones. New panics
	// on a Policy that was not resolved (see Policy.Check).
	Policy Policy

	// Texts carries typed user turns (the demo, a technician's keyboard, the
	// kiosk page); nil: none.
	Texts <-chan string
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
	// Health, if set, is told of a device failing a collection and of the
	// end of that problem (a collection of its kind that works), for the
	// status line to read. The connection's problems are not in it: they
	// are the State OnState gets.
	Health *health.Tracker

	// engagementTicks, set by tests (export_test.go), replaces the
	// engagement's idle-check ticker, so that a test decides when the
	// check runs instead of sleeping past it.
	engagementTicks <-chan time.Time
}

// Agent is whom the bridge talks to and how it may reach it.
type Agent struct {
	URL   string
	Token string
	// Network is the policy for every connection to the agent (nil: the
	// production policy, see client.Policy).
	Network *client.Policy
	// ICEServers and RelayOnly go to every WebRTC dial (see
	// client.WebRTCOptions).
	ICEServers []client.ICEServer
	RelayOnly  bool
}

// Devices are the kiosk's hardware as the bridge sees it: one class
// interface each, nil for a device that is not configured. A configured
// device that is absent now is not nil: it reports itself absent
// (TagReader.Status, Camera.Present) and its modality stays out of
// sessions until it comes.
type Devices struct {
	Reader TagReader
	Camera Camera
	// Mic resolves the microphone when the first WebRTC session needs it,
	// so that a kiosk serving text agents never loads the sound system
	// (audio.LazyMic fits; OpenedMic wraps one already open). An error
	// means no microphone for that session. The owner of Mic closes what
	// it opened.
	Mic MicOpener
	// Speaker plays the agent's voice; Volume, when set, is its level:
	// ducked while TALK is held for push-to-talk, and during engagements
	// when the microphone cancels no echo.
	Speaker audio.Sink
	Volume  *audio.Volume
	// Buttons are the controls a person presses; nil: none (only agent
	// requests then wait).
	Buttons button.Source
	// LED shows what is live (nil: none).
	LED button.Indicator
}

// MicOpener resolves a microphone; *audio.LazyMic is one.
type MicOpener interface {
	Open() (*audio.Mic, error)
}

// OpenedMic is a microphone opened already, as a MicOpener.
type OpenedMic struct{ Mic *audio.Mic }

// Open returns the microphone.
func (m OpenedMic) Open() (*audio.Mic, error) { return m.Mic, nil }

// Policy is the session's rules. Every field but the last two comes from
// configuration as config resolved it (station.Policy builds it); a zero
// one is a Policy that was never resolved, not a request for a default.
type Policy struct {
	// Modalities enabled by configuration (nfc, photo).
	Modalities []protocol.Modality
	// Window is how long the reader stays armed after SCAN.
	Window time.Duration
	// ScanIntent and PhotoIntent go into each observation of that kind.
	ScanIntent, PhotoIntent string
	// EngagementIdle ends a microphone engagement (agents without explicit
	// audio turns) after this long without an agent run or an observation.
	EngagementIdle time.Duration
	// ReconnectMax bounds the wait between sessions; StableAfter is how
	// long a session must last before that backoff starts over.
	ReconnectMax, StableAfter time.Duration
	// RunTimeout: a run with no event from the agent for this long gets
	// response.cancel. CancelGrace: a run still open this long after a
	// response.cancel ends the session.
	RunTimeout, CancelGrace time.Duration
	// RunBudget bounds what the agent may send in one run.
	RunBudget client.RunBudget

	// Not configurable (tests shorten them): HardwareCheck is how often
	// the hardware present is compared with the session's offer (0: 2 s;
	// a change starts a new session), ReconnectMin the first wait between
	// sessions (0: backoff's 1 s).
	HardwareCheck, ReconnectMin time.Duration
}

// defaultHardwareCheck is HardwareCheck's zero: often enough that a camera
// plugged in is offered within a breath, rarely enough to cost nothing.
const defaultHardwareCheck = 2 * time.Second

// ErrUnresolvedPolicy is wrapped by Policy.Check's errors.
var ErrUnresolvedPolicy = errors.New("bridge policy not resolved from configuration (build it with station.Policy)")

// Check reports a Policy with a configured field left zero.
func (p *Policy) Check() error {
	for _, f := range []struct {
		name string
		zero bool
	}{
		{"Window", p.Window <= 0},
		{"ScanIntent", p.ScanIntent == ""},
		{"PhotoIntent", p.PhotoIntent == ""},
		{"EngagementIdle", p.EngagementIdle <= 0},
		{"ReconnectMax", p.ReconnectMax <= 0},
		{"StableAfter", p.StableAfter <= 0},
		{"RunTimeout", p.RunTimeout <= 0},
		{"CancelGrace", p.CancelGrace <= 0},
		{"RunBudget", p.RunBudget.Bytes <= 0 || p.RunBudget.Events <= 0},
	} {
		if f.zero {
			return fmt.Errorf("%w: %s is zero", ErrUnresolvedPolicy, f.name)
		}
	}
	return nil
}
