package accept

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentcall/acbridge/button"
)

// The button steps: each configured control pressed and released once,
// with its latency, and proof that debouncing holds (one event per press).

// controls lists the configured controls the acceptance can read, in
// button.Controls order. Terminal keys are left out: they are the
// technician's own keyboard, which also answers the prompts.
func (r *runner) controls() []string {
	var out []string
	for _, c := range button.Controls {
		for _, b := range r.cfg.Buttons {
			if b.Control == c && b.Source != "terminal" {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// debounceOf is the longest debounce configured for control.
func (r *runner) debounceOf(control string) time.Duration {
	var d time.Duration
	for _, b := range r.cfg.Buttons {
		if b.Control == control {
			d = max(d, b.Debounce.Duration)
		}
	}
	return d
}

func (r *runner) buttonSteps() []*step {
	controls := r.controls()
	if len(controls) == 0 {
		return []*step{{id: "buttons.none", group: GroupButtons, title: "a visible control starts every collection", timeout: time.Second, run: r.noButtons}}
	}
	var steps []*step
	for i, c := range controls {
		owner := i == 0
		steps = append(steps, &step{id: "buttons." + c, group: GroupButtons, interactive: true, timeout: r.o.StepTimeout,
			title:       fmt.Sprintf("the %s control gives one press and one release", strings.ToUpper(c)),
			instruction: fmt.Sprintf("Press the %s button once and release it.", strings.ToUpper(c)),
			timeoutFix:  "check the button's wiring (GPIO) or that the keypad sends the configured key (evtest), and the [[button]] table",
			run:         func(ctx context.Context, t *T) error { return r.buttonPress(ctx, t, c, owner, "buttons."+controls[0]) }})
	}
	return steps
}

func (r *runner) noButtons(_ context.Context, _ *T) error {
	if r.cfg.Kiosk.Listen != "" {
		return skipf("no physical button is configured; the controls are on the kiosk page (%s): check them there", r.cfg.Kiosk.Listen)
	}
	for _, b := range r.cfg.Buttons {
		if b.Source == "terminal" {
			return skipf("only terminal keys are configured: they are the technician's keyboard, nothing to accept")
		}
	}
	return failf("add a [[button]] table per control (scan, photo, ...) to the configuration; see acbridge.example.toml",
		"no control is configured: a person could not start a collection")
}

func (r *runner) buttonPress(ctx context.Context, t *T, control string, owner bool, ownerID string) error {
	src, err := r.rig.openButtons()
	if err != nil {
		if owner {
			return failErr(err, button.WarnControls.Fix)
		}
		return t.needs(err, ownerID, "the buttons did not open")
	}
	drain(src)
	t.prompt(ctx, Prompt{Action: ActPress, Control: control, Text: t.res.Instruction})
	press, seen, err := r.waitPress(ctx, src, control)
	if err != nil {
		if errors.Is(err, button.ErrDisconnected) {
			return failErr(err, button.WarnControls.Fix)
		}
		return err
	}
	if at, ok := r.actedAt(t.res.ID); ok {
		t.measureDur("pressToEvent", seen.Sub(at))
	} else {
		// Without the moment of the press (the backends do not pass on the
		// kernel's timestamp), what can be measured is the delivery.
		t.measureDur("eventDelivery", seen.Sub(press.At))
	}
	presses, releases := 1, 0
	var release button.Event
	for releases == 0 {
		ev, err := src.Read(ctx)
		if err != nil {
			return err
		}
		switch {
		case ev.Control != control || ev.Long:
		case ev.Pressed:
			presses++
		default:
			releases++
			release = ev
		}
	}
	t.measureDur("held", release.At.Sub(press.At))
	// A bouncing contact shows as more presses right after the release.
	quiet := max(250*time.Millisecond, 3*r.debounceOf(control))
	qctx, cancel := context.WithTimeout(ctx, quiet)
	for {
		ev, err := src.Read(qctx)
		if err != nil {
			break
		}
		if ev.Control == control && ev.Pressed && !ev.Long {
			presses++
		}
	}
	cancel()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	t.measure("pressEvents", float64(presses), "")
	if presses != 1 {
		return failf("raise debounce in this control's [[button]] table (for example \"50ms\"); a worn switch bounces longer and may need replacing",
			"one press gave %d press events: the debounce does not hold", presses)
	}
	return nil
}

func (r *runner) actedAt(step string) (time.Time, bool) {
	if at, ok := r.o.Technician.(ActionTimer); ok {
		return at.ActedAt(step)
	}
	return time.Time{}, false
}
