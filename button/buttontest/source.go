package buttontest

import (
	"context"

	"github.com/agentcall/acbridge/button"
)

// Source is a button.Source whose controls the test presses and releases.
// Raw changes go through the real button.Debouncer, so bounces, debouncing
// and long presses behave as with hardware.
type Source struct {
	d *button.Debouncer
}

var _ button.Source = (*Source)(nil)

// NewSource returns a Source; o may be nil (defaults of button.Options).
func NewSource(o *button.Options) *Source {
	return &Source{d: button.NewDebouncer(o)}
}

// Press sets a control's raw level to pressed.
func (s *Source) Press(control string) { s.d.Set(control, true) }

// Release sets a control's raw level to released.
func (s *Source) Release(control string) { s.d.Set(control, false) }

// SetInput sets the raw level of one of several inputs of a control.
func (s *Source) SetInput(control string, input int, pressed bool) {
	s.d.SetInput(control, input, pressed)
}

// Tap reports a complete press at once, as the terminal backend does.
func (s *Source) Tap(control string, long bool) { s.d.Tap(control, long) }

// Disconnect makes the Source fail as an unplugged device does: Read
// returns the queued events, then err.
func (s *Source) Disconnect(err error) { s.d.Fail(err) }

func (s *Source) Read(ctx context.Context) (button.Event, error) { return s.d.Read(ctx) }

func (s *Source) Close() error { return s.d.Close() }
