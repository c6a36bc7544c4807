package accept

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/power"
	"github.com/agentcall/acbridge/station"
)

// Result is the outcome of one step.
type Result string

const (
	Pass Result = "pass"
	Fail Result = "fail" // Reason and Fix say what went wrong and what to do
	Skip Result = "skip" // Reason says why the step did not run
)

// Groups, in checklist order. Only accepts them and step ids.
const (
	GroupEnvironment = "environment"
	GroupNFC         = "nfc"
	GroupButtons     = "buttons"
	GroupCamera      = "camera"
	GroupAudio       = "audio"
	GroupAgent       = "agent"
)

// Groups lists the groups in checklist order.
var Groups = []string{GroupEnvironment, GroupNFC, GroupButtons, GroupCamera, GroupAudio, GroupAgent}

// Measurement is one measured value of a step.
type Measurement struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit,omitempty"`
}

// StepResult is what one step found.
type StepResult struct {
	ID           string        `json:"id"`
	Group        string        `json:"group"`
	Title        string        `json:"title"`
	Instruction  string        `json:"instruction,omitempty"`
	TimeoutMs    int64         `json:"timeoutMs"`
	Result       Result        `json:"result"`
	Reason       string        `json:"reason,omitempty"`
	Fix          string        `json:"fix,omitempty"`
	Measurements []Measurement `json:"measurements,omitempty"`
	Notes        []string      `json:"notes,omitempty"`
	StartedAt    time.Time     `json:"startedAt"`
	DurationMs   float64       `json:"durationMs"`
}

// Measurement returns the named measurement.
func (s *StepResult) Measurement(name string) (Measurement, bool) {
	for _, m := range s.Measurements {
		if m.Name == name {
			return m, true
		}
	}
	return Measurement{}, false
}

// Action says what a prompt asks the technician to do, so that a simulated
// technician can do it.
type Action string

const (
	ActTap      Action = "tap"       // put Prompt.Tag (1 or 2) on the reader, lifting any tag first
	ActTapPhone Action = "tap-phone" // put a phone or random-UID tag on the reader (optional)
	ActTapNDEF  Action = "tap-ndef"  // put a tag carrying a web address on the reader (optional)
	ActRemove   Action = "remove"    // take every tag off the reader, then press Prompt.Control if set
	ActPress    Action = "press"     // press and release Prompt.Control once
	ActAim      Action = "aim"       // point the camera at the scene it will see in use
	ActSpeak    Action = "speak"     // speak normally towards the microphone
	ActListen   Action = "listen"    // question: was the tone heard from the speaker?
	ActEcho     Action = "echo"      // question: run the optional echo measurement?
)

// ToneHz is the pitch of the tone audio.speaker plays, which the
// technician listens for.
const ToneHz = toneHz

// Prompt is one request to the technician.
type Prompt struct {
	Step     string // step id
	Action   Action
	Tag      int    // ActTap: 1 or 2
	Control  string // ActPress, ActRemove: the control to press
	Text     string // what the technician reads
	Optional bool   // the technician may decline
}

// Technician is the person doing the acceptance, or a simulation of one.
type Technician interface {
	// Do shows p; the step then waits for the device to notice the action.
	// It must return promptly. For an optional prompt it returns a channel
	// that is closed when the technician declines; otherwise nil.
	Do(ctx context.Context, p Prompt) <-chan struct{}
	// Ask shows a yes/no question and waits for the answer.
	Ask(ctx context.Context, p Prompt) (bool, error)
}

// ActionTimer is implemented by technicians that know when they acted (the
// simulated one); button latencies are then measured from the action.
type ActionTimer interface {
	ActedAt(step string) (time.Time, bool)
}

// Options configure Run. Zero fields mean the documented defaults; the
// device fields replace what Config names (the simulation uses them).
type Options struct {
	// Config is the kiosk's configuration; nil means config.Defaults().
	// ConfigPath is where it came from, ConfigErr why it could not be
	// loaded (then env.config fails and Config should be the defaults).
	Config     *config.Config
	ConfigPath string
	ConfigErr  error

	// Version is the acbridge version for the report's device identity.
	Version string
	// Title names the run in its header and verdict: "" is an acceptance
	// (ACCEPTED / NOT ACCEPTED); acbridge doctor passes "doctor".
	Title string
	// Only selects groups or step ids; empty means every step.
	Only []string
	// Replay adds the conformance walkthrough against the configured agent.
	Replay bool
	// ShowPath, if set, is where the acceptance photo is written for the
	// technician to look at; otherwise it is never kept.
	ShowPath string

	// Technician answers prompts; nil makes interactive steps skip (the
	// environment steps, `acbridge doctor`, need none).
	Technician Technician
	// Out receives instructions, progress and the summary; nil discards.
	Out io.Writer
	// Logger receives device diagnostics (never a UID); nil discards.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	// Devices replace devices Config names: a simulated kiosk's (station/sim's
	// Overrides, the value daemon.Build takes for the demo). Every other
	// device is opened from Config through station, as the daemon opens
	// it; nil opens them all so.
	Devices *station.Overrides
	// Power says where env.power reads the firmware's state; nil means
	// the real system.
	Power *power.Options
	// RC522 replaces the options env.rc522 opens the RC522 with; nil
	// means the ones Config names.
	RC522 *station.RC522Board
	// Simulation describes the simulated kiosk, "" on real hardware.
	Simulation string

	// StepTimeout bounds each interactive step; default 60 s.
	StepTimeout time.Duration
	// NoTapWindow is how long the reader stays armed in nfc.no-tap;
	// default 5 s.
	NoTapWindow time.Duration
	// Recording is the microphone check's length; default 3 s.
	Recording time.Duration
	// Tone is how long the speaker tone plays; default 1.5 s.
	Tone time.Duration

	// KioskRoot is the directory under which env.kiosk reads the kiosk
	// screen's set-up (etc/default/acbridge-kiosk, the unit's enable
	// link); "" means "/".
	KioskRoot string
}

// Defaults of Options.
const (
	DefaultStepTimeout = 60 * time.Second
	DefaultNoTapWindow = 5 * time.Second
	DefaultRecording   = 3 * time.Second
	DefaultTone        = 1500 * time.Millisecond
)

// ErrUnknownStep is wrapped by Run's error for an Only entry that names no
// group and no step.
var ErrUnknownStep = errors.New("accept: unknown step or group")

func (o *Options) withDefaults() Options {
	r := Options{}
	if o != nil {
		r = *o
	}
	if r.Config == nil {
		r.Config = config.Defaults()
	}
	if r.Out == nil {
		r.Out = io.Discard
	}
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.StepTimeout <= 0 {
		r.StepTimeout = DefaultStepTimeout
	}
	if r.NoTapWindow <= 0 {
		r.NoTapWindow = DefaultNoTapWindow
	}
	if r.Recording <= 0 {
		r.Recording = DefaultRecording
	}
	if r.Tone <= 0 {
		r.Tone = DefaultTone
	}
	return r
}

// outcome is how a step function ends other than passing.
type outcome struct {
	result      Result
	reason, fix string
}

func (o *outcome) Error() string { return string(o.result) + ": " + o.reason }

// failf ends a step as failed with its fix.
func failf(fix, format string, a ...any) error {
	return &outcome{result: Fail, reason: fmt.Sprintf(format, a...), fix: fix}
}

// skipf ends a step as skipped.
func skipf(format string, a ...any) error {
	return &outcome{result: Skip, reason: fmt.Sprintf(format, a...)}
}

// failErr ends a step as failed because of err, with fix (or the fix the
// error's kind calls for when fix is empty).
func failErr(err error, fix string) error {
	if fix == "" {
		fix = fixFor(err)
	}
	return &outcome{result: Fail, reason: err.Error(), fix: fix}
}
