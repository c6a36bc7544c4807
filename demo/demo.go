// Package demo is acbridge's embedded demo: the bridge, on a simulated
// kiosk (package station/sim) with the reference agent, tells a short story
// of teaching the agent an object, or lets a person drive it from the
// keyboard. It is what `acbridge-demo run` (make demo) runs.
package demo

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/bridge/bridgetest"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/buttontest"
	"github.com/agentcall/acbridge/daemon"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/station"
	"github.com/agentcall/acbridge/station/sim"
)

// Two demo tags. Their UIDs stay inside the virtual reader, as real ones
// stay inside package nfc.
var demoTags = map[string][]byte{
	"A": {0x04, 0x51, 0x7A, 0x22, 0x9C, 0x41, 0x80},
	"B": {0x04, 0x0E, 0x93, 0x61, 0x2A, 0x57, 0x81},
}

// Options configure Run. Nil streams read as empty input and discarded
// output.
type Options struct {
	// Stdin drives an interactive demo; Stdout receives the story.
	Stdin  io.Reader
	Stdout io.Writer
	// Log receives the daemon's log (the privacy audit lines among it);
	// nil discards it.
	Log io.Writer
	// Interactive lets the keyboard drive: a/b tap tag A/B, p takes a
	// photo, c cancels, other lines are said to the agent, q quits.
	Interactive bool
	// Reader is the simulated reader: sim.InProcess (the zero value: no
	// other program can put a card on it), sim.VPCD (the real PC/SC stack,
	// shared with whatever else uses pcscd) or sim.Auto.
	Reader string
}

type demo struct {
	stdin   io.Reader
	stdout  io.Writer
	kiosk   *sim.Kiosk
	out     *bridgetest.Transcript
	buttons *buttontest.Source
	texts   chan string
	runs    int // agent runs seen so far
}

// Run runs the demo until its story ends, the person quits or ctx ends.
func Run(ctx context.Context, o *Options) error {
	d := &demo{stdin: strings.NewReader(""), stdout: io.Discard, texts: make(chan string)}
	logw := io.Discard
	so := sim.Options{Reader: sim.InProcess}
	if o != nil && o.Reader != "" {
		so.Reader = o.Reader
	}
	if o != nil {
		if o.Stdin != nil {
			d.stdin = o.Stdin
		}
		if o.Stdout != nil {
			d.stdout = o.Stdout
		}
		if o.Log != nil {
			logw = o.Log
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k, err := sim.New(ctx, &so)
	if err != nil {
		return err
	}
	defer k.Close()
	d.kiosk = k
	d.out = &bridgetest.Transcript{W: d.stdout}
	d.buttons = buttontest.NewSource(&button.Options{Debounce: -1})
	defer d.buttons.Close()
	log := slog.New(slog.NewTextHandler(logw, nil))
	// The kiosk is built as `acbridge run` builds one from the simulated
	// kiosk's configuration (the test camera among it); only the buttons
	// are the story's, pressed by the script.
	dev := k.Overrides(log)
	dev.Buttons = func() (button.Source, error) { return d.buttons, nil }
	parts, err := daemon.Build(ctx, k.Config, &daemon.BuildOptions{Logger: log, Devices: dev})
	if err != nil {
		return err
	}
	defer parts.Close()
	if err := waitReader(ctx, parts.Station.Reader); err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "acbridge demo: the reference agent at %s;\n  tags: %s;\n  photos: the test-pattern camera; a temporary keystore.\n\n", k.URL, k.Description)
	opts := parts.Bridge(d.out, nil)
	// Only the story's pace is the demo's; the rest of the session's rules
	// are the simulated kiosk's configuration, as the daemon's are.
	opts.Policy.Window, opts.Policy.ReconnectMax = 10*time.Second, 2*time.Second
	opts.Texts, opts.Display, opts.Audit = d.texts, d.out.Display, log
	b := bridge.New(opts)
	done := make(chan error, 1)
	go func() { done <- b.Run(ctx) }()
	defer func() { cancel(); <-done }()
	if err := d.wait(ctx, "[connected to", 1); err != nil {
		return err
	}
	if o != nil && o.Interactive {
		return d.interactive(ctx)
	}
	return d.script(ctx)
}

// waitReader waits up to 3 s for pcscd to list the vpcd reader station
// opened (nil: the in-process reader, there at once), so that the story's
// first tap does not meet a session without nfc.
func waitReader(ctx context.Context, r *station.Reader) error {
	if r == nil {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	st := r.WaitReader(wctx)
	cancel()
	if st.State == nfc.StateNoReader {
		return fmt.Errorf("simulation: no vpcd reader: %v (scripts/pcscd.sh start runs pcscd with the vpcd driver)", st.Err)
	}
	return nil
}

func (d *demo) narrate(s string) { fmt.Fprintf(d.stdout, "\n== %s\n", s) }

func (d *demo) wait(ctx context.Context, sub string, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := d.out.Wait(ctx, sub, n); err != nil {
		return fmt.Errorf("the demo did not see %q in time", sub)
	}
	return nil
}

// answer waits for the agent to finish its next run.
func (d *demo) answer(ctx context.Context) error {
	d.runs++
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := d.out.WaitRuns(ctx, d.runs); err != nil {
		if d.kiosk.InProcess == nil {
			// The vpcd reader is pcscd's, shared with every program that
			// uses it: a card put there by another changes what the kiosk
			// reads, which is no fault of the agent's.
			return fmt.Errorf("no answer in time; the vpcd reader is shared with every program using pcscd, and another one's card on it changes what the demo reads: run the demo without --reader pcscd")
		}
		return fmt.Errorf("the agent did not answer in time")
	}
	return nil
}

func (d *demo) press(control string) {
	d.buttons.Press(control)
	d.buttons.Release(control)
}

func (d *demo) tap(ctx context.Context, tag string) error {
	armed := strings.Count(d.out.String(), "[reader armed")
	d.press(button.Scan)
	if err := d.wait(ctx, "[reader armed", armed+1); err != nil {
		return err
	}
	fmt.Fprintf(d.stdout, "(tag %s taps the reader)\n", tag)
	return d.kiosk.Place(ctx, demoTags[tag])
}

// lift takes the tag off the reader and says text.
func (d *demo) lift(ctx context.Context, text string) error {
	if err := d.kiosk.Lift(ctx); err != nil {
		return err
	}
	return d.say(ctx, text)
}

func (d *demo) say(ctx context.Context, text string) error {
	select {
	case d.texts <- text:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *demo) script(ctx context.Context) error {
	steps := []struct {
		title string
		do    func() error
	}{
		{"A person presses SCAN and taps tag A. The agent has never seen it.", func() error { return d.tap(ctx, "A") }},
		{"They teach the agent what it is.", func() error { return d.lift(ctx, "teach object Workshop router") }},
		{"Nothing is stored until they confirm.", func() error { return d.say(ctx, "confirm object") }},
		{"Tag A again: the taught label comes back.", func() error { return d.tap(ctx, "A") }},
		{"Tag B is a different object: it stays unknown.", func() error { return d.tap(ctx, "B") }},
	}
	for _, s := range steps {
		d.narrate(s.title)
		if err := s.do(); err != nil {
			return err
		}
		if err := d.answer(ctx); err != nil {
			return err
		}
	}
	d.narrate("The agent asks for a photo; only a press on PHOTO answers it.")
	if err := d.say(ctx, "take a photo"); err != nil {
		return err
	}
	if err := d.wait(ctx, "agent asks:", 1); err != nil {
		return err
	}
	d.press(button.Photo)
	if err := d.wait(ctx, "[photo sent]", 1); err != nil {
		return err
	}
	if err := d.answer(ctx); err != nil {
		return err
	}
	if !strings.Contains(d.out.String(), "agent: This is Workshop router.") {
		return errors.New("the taught label did not come back")
	}
	fmt.Fprintln(d.stdout, "\ndemo: ok — the label came back only after confirmation, tag B stayed unknown, and the photo answered the agent's request. No tag UID left the virtual reader; the photo was never written to disk.")
	return nil
}

func (d *demo) interactive(ctx context.Context) error {
	fmt.Fprintln(d.stdout, "Keys (then Enter): a / b tap tag A / B · p photo · c cancel (a long CANCEL) · q quit · anything else is said to the agent.")
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(d.stdin)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		close(lines)
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case line, ok := <-lines:
			if !ok {
				return nil
			}
			switch strings.TrimSpace(line) {
			case "q":
				return nil
			case "a", "b":
				if err := d.tap(ctx, strings.ToUpper(strings.TrimSpace(line))); err != nil {
					fmt.Fprintln(d.stdout, err)
				}
			case "p":
				d.press(button.Photo)
			case "c":
				// Cancel acts on a long press; a typed key cannot be held.
				d.buttons.Tap(button.Cancel, true)
			case "":
			default:
				if err := d.say(ctx, line); err != nil {
					return err
				}
			}
		}
	}
}
