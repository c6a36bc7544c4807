package button

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// The named controls. Backends map their keys or lines onto these names only.
const (
	Scan   = "scan"   // arm the NFC reader for one tap
	Photo  = "photo"  // capture one photo
	Talk   = "talk"   // push-to-talk: held while speaking
	Cancel = "cancel" // a long press cancels the agent's run
)

// Controls lists the valid control names in a stable order.
var Controls = []string{Scan, Photo, Talk, Cancel}

// Event is one change of a control, after debouncing.
//
// A long press of Cancel yields three events: the press, then, once the
// control has been held for Options.LongPress, an event with Pressed and Long
// both true, then the release.
type Event struct {
	Control string
	Pressed bool
	// Long marks the event sent while a control is still held after its
	// long-press duration. It is never set on a release.
	Long bool
	At   time.Time
}

func (e Event) String() string {
	switch {
	case e.Long:
		return e.Control + " long press"
	case e.Pressed:
		return e.Control + " pressed"
	default:
		return e.Control + " released"
	}
}

// Source is a set of controls. Read blocks until the next event, ctx is done
// or the Source is closed; Close is safe to call twice and makes every
// pending and later Read return ErrClosed.
type Source interface {
	Read(ctx context.Context) (Event, error)
	Close() error
}

var (
	// ErrClosed is returned by Read after Close.
	ErrClosed = errors.New("button: closed")
	// ErrDisconnected is wrapped by the error Read returns once the device or
	// input behind a Source is gone (unplugged keypad, closed terminal). The
	// Source delivers the events read before that, then this error; the
	// caller may open a new Source.
	ErrDisconnected = errors.New("button: disconnected")
	// ErrUnknownControl is wrapped by errors about a control name that is
	// not one of Controls.
	ErrUnknownControl = errors.New("button: unknown control")
)

// CheckControl returns an error wrapping ErrUnknownControl unless name is one
// of Controls.
func CheckControl(name string) error {
	for _, c := range Controls {
		if name == c {
			return nil
		}
	}
	return fmt.Errorf("%w %q (want %s)", ErrUnknownControl, truncate(name, 32), strings.Join(Controls, ", "))
}

// truncate bounds a configuration value quoted in an error message, so that
// bad input cannot make an error arbitrarily long.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n-- // do not cut a UTF-8 sequence in half
	}
	return s[:n] + "…"
}

// Light is the state of an indicator such as the "armed" LED.
type Light int

const (
	LightOff Light = iota
	LightOn
	// LightBlink asks for attention: the agent requested a collection and
	// waits for the person's press.
	LightBlink
)

func (l Light) String() string {
	switch l {
	case LightOff:
		return "off"
	case LightOn:
		return "on"
	case LightBlink:
		return "blink"
	}
	return fmt.Sprintf("Light(%d)", int(l))
}

// Indicator shows a Light to the person. Set after Close returns ErrClosed;
// Close turns the light off and is safe to call twice.
type Indicator interface {
	Set(Light) error
	Close() error
}

// NopIndicator is the Indicator of a kiosk without an LED.
type NopIndicator struct{}

func (NopIndicator) Set(Light) error { return nil }
func (NopIndicator) Close() error    { return nil }

var _ Indicator = NopIndicator{}
