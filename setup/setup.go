package setup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

// DefaultPressWait is how long a button is waited for when
// Options.PressWait is zero.
const DefaultPressWait = 30 * time.Second

// Options configures Run. The zero value asks on a nil reader, which fails
// at the first question; In and Out are all a caller must set.
type Options struct {
	// In carries the answers, one a line, when Answers is nil. When it is
	// a terminal (*os.File), the token is read with echo off.
	In  io.Reader
	Out io.Writer
	// Answers, if not nil, answers every question; In is then not read.
	Answers *Answers
	// ConfigPath is the configuration written; "": config.DefaultPath.
	ConfigPath string
	// TokenPath is where a token typed in is stored; "": "token" beside
	// ConfigPath.
	TokenPath string
	// Keypads are input devices watched besides those of InputDir (a FIFO
	// of input_event records stands in for a keypad).
	Keypads []string
	// InputDir lists the keypads; "": /dev/input/by-id.
	InputDir string
	// Readers are the reader drivers and Sections the `acbridge devices`
	// sections; nil: the station tables.
	Readers  []station.ReaderDriver
	Sections []station.Section
	// Chips lists the GPIO chips; nil: the machine's.
	Chips gpio.ChipLister
	// PressWait bounds the wait for each button; zero: DefaultPressWait.
	PressWait time.Duration
	// Now stamps the backup of a replaced configuration; nil: time.Now.
	Now func() time.Time
	// Doctor and Accept run `acbridge doctor` and `acbridge accept` on the
	// written configuration, printing to Out, and report success; nil:
	// that step is left out.
	Doctor func(ctx context.Context, configPath string) bool
	Accept func(ctx context.Context, configPath string) bool
}

// Answers are the answers of a scripted setup (--answers FILE, TOML). A
// device is named as `acbridge devices` lists it, by its number in that
// list, or "none".
type Answers struct {
	Reader     string `toml:"reader"`
	Camera     string `toml:"camera"`
	Microphone string `toml:"microphone"`
	Speaker    string `toml:"speaker"`
	// GPIOChip is the chip whose lines are watched for buttons ("header",
	// gpiochip0, a label); "" or "none": no GPIO buttons.
	GPIOChip string `toml:"gpio_chip"`
	// Buttons are the controls to learn, in order; empty: those the
	// chosen devices use (scan, photo, talk) and cancel; []: none.
	Buttons  []string `toml:"buttons"`
	AgentURL string   `toml:"agent_url"`
	// TokenFile is an existing token file (agent.token_file), checked
	// under the token rules; "": the agent needs no token. A scripted setup
	// never carries the token itself.
	TokenFile string `toml:"token_file"`
	// Keystore is keystore.path; "": the default.
	Keystore string `toml:"keystore"`
	// Accept runs the acceptance after doctor.
	Accept bool `toml:"accept"`
}

// Error is a setup that stopped; nothing was written.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() + "; nothing was written" }
func (e *Error) Unwrap() error { return e.Err }

// ErrNoPress is wrapped by the error of a button not pressed in time.
var ErrNoPress = errNoPress

// plan is what the answers make of the configuration.
type plan struct {
	cfg       config.Config
	readerDrv string
	token     []byte // a token typed in, to store at TokenPath
	keystore  string
	insecure  bool
	notes     map[string]string // key → the comment above it
}

// Run asks the questions, learns the buttons, writes the configuration and
// runs doctor. A returned *Error means nothing was written.
func Run(ctx context.Context, o *Options) error {
	o = withDefaults(o)
	a := newAsker(o)
	p, err := ask(ctx, o, a)
	if err != nil {
		return &Error{err}
	}
	if err := write(o, p); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "\nConfiguration written to %s.\n", o.ConfigPath)
	if o.Doctor == nil {
		return nil
	}
	fmt.Fprintf(o.Out, "Running acbridge doctor --config %s:\n\n", o.ConfigPath)
	if !o.Doctor(ctx, o.ConfigPath) {
		fmt.Fprintf(o.Out, "\ndoctor found problems: fix them, then run acbridge doctor --config %s again.\n", o.ConfigPath)
		return nil
	}
	if o.Accept == nil {
		return nil
	}
	run := false
	if o.Answers != nil {
		run = o.Answers.Accept
	} else {
		ans, err := a.line("\nRun the acceptance now (acbridge accept: tap a tag, press each button)? [y/N] ")
		if err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		run = strings.EqualFold(ans, "y") || strings.EqualFold(ans, "yes")
	}
	if !run {
		fmt.Fprintf(o.Out, "Run the acceptance later with: acbridge accept --config %s\n", o.ConfigPath)
		return nil
	}
	o.Accept(ctx, o.ConfigPath)
	return nil
}

func withDefaults(in *Options) *Options {
	o := *in
	if o.Out == nil {
		o.Out = io.Discard
	}
	if o.ConfigPath == "" {
		o.ConfigPath = config.DefaultPath
	}
	if o.TokenPath == "" {
		o.TokenPath = filepath.Join(filepath.Dir(o.ConfigPath), "token")
	}
	if o.InputDir == "" {
		o.InputDir = "/dev/input/by-id"
	}
	if o.Readers == nil {
		o.Readers = station.ReaderDrivers()
	}
	if o.Sections == nil {
		o.Sections = station.Sections()
	}
	if o.Chips == nil {
		o.Chips = gpio.SystemChips{}
	}
	if o.PressWait <= 0 {
		o.PressWait = DefaultPressWait
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &o
}

// ask walks the questions in the order a technician meets the hardware.
func ask(ctx context.Context, o *Options, a *asker) (*plan, error) {
	p := &plan{cfg: *config.Defaults(), notes: map[string]string{}}
	fmt.Fprintln(o.Out, "acbridge setup: this kiosk's hardware, its buttons and its agent, then a configuration file.")
	fmt.Fprintln(o.Out)

	readers := readerChoices(ctx, o)
	r, err := a.choose("NFC reader", "reader", readers)
	if err != nil {
		return nil, err
	}
	if r != nil {
		p.readerDrv = r.driver
		p.cfg.NFC.Driver = r.driver
		if d, _ := lookupDriver(o.Readers, r.driver); d.Device != nil {
			*d.Device(&p.cfg.NFC) = r.name
		} else {
			p.cfg.NFC.Reader = r.name
		}
	}
	devices := map[string]*choice{}
	for _, q := range []struct{ section, title, answer string }{
		{"cameras", "camera", "camera"},
		{"microphones", "microphone", "microphone"},
		{"speakers", "speaker", "speaker"},
	} {
		c, err := a.choose(q.title, q.answer, sectionChoices(ctx, o, q.section))
		if err != nil {
			return nil, err
		}
		devices[q.section] = c
	}
	var mods []string
	if r != nil {
		mods = append(mods, "nfc")
	}
	if c := devices["cameras"]; c != nil {
		p.cfg.Camera.Device = c.name
		mods = append(mods, "photo")
	}
	if c := devices["microphones"]; c != nil {
		p.cfg.Audio.Microphone = c.name
	}
	if c := devices["speakers"]; c != nil {
		p.cfg.Audio.Speaker = c.name
	}
	if len(mods) == 0 {
		return nil, errors.New("neither an NFC reader nor a camera was chosen: a kiosk needs at least one (acbridge devices lists what this machine has)")
	}
	p.cfg.Modalities.Enabled = mods

	controls := []string{}
	if r != nil {
		controls = append(controls, button.Scan)
	}
	if devices["cameras"] != nil {
		controls = append(controls, button.Photo)
	}
	if devices["microphones"] != nil {
		controls = append(controls, button.Talk)
	}
	controls = append(controls, button.Cancel)
	if o.Answers != nil && o.Answers.Buttons != nil { // [] learns none
		controls = nil
		for _, c := range o.Answers.Buttons {
			if err := button.CheckControl(c); err != nil {
				return nil, fmt.Errorf("answers: buttons: %w", err)
			}
			if slices.Contains(controls, c) {
				return nil, fmt.Errorf("answers: buttons: %s is listed twice", c)
			}
			controls = append(controls, c)
		}
	}
	chip, err := a.chooseChip(o)
	if err != nil {
		return nil, err
	}
	var reader string // a keyboard-style reader types tags: not a keypad
	if p.cfg.NFC.Driver == "keyboard" {
		reader = p.cfg.NFC.Device
	}
	buttons, err := learn(ctx, o, a, controls, chip, reader)
	if err != nil {
		return nil, err
	}
	p.cfg.Buttons = buttons

	if err := askAgent(o, a, p); err != nil {
		return nil, err
	}
	return p, nil
}

func lookupDriver(ds []station.ReaderDriver, name string) (station.ReaderDriver, bool) {
	i := slices.IndexFunc(ds, func(d station.ReaderDriver) bool { return d.Name == name })
	if i < 0 {
		return station.ReaderDriver{}, false
	}
	return ds[i], true
}

// learn asks for each control's button and records the input that moved.
func learn(ctx context.Context, o *Options, a *asker, controls []string, chip, reader string) ([]config.Button, error) {
	pads := slices.DeleteFunc(append(keypads(o.InputDir), o.Keypads...), func(p string) bool { return p == reader })
	w, notes := watch(pads, chip, o.Chips)
	defer w.Close()
	fmt.Fprintln(o.Out, "\nButtons")
	for _, n := range notes {
		fmt.Fprintf(o.Out, "  note: %s\n", n)
	}
	if len(w.names) == 0 {
		fmt.Fprintln(o.Out, "  no keypad and no GPIO line to watch: buttons can only be terminal keys")
	} else {
		fmt.Fprintf(o.Out, "  watching: %s\n", strings.Join(w.names, ", "))
	}
	var out []config.Button
	taken := map[string]string{}
	chars := map[string]string{}
	for _, control := range controls {
		up := strings.ToUpper(control)
		if o.Answers == nil {
			ans, err := a.line(fmt.Sprintf("%s button: press Enter, then press the button (or type one character for a terminal key, or \"skip\"): ", up))
			if err != nil {
				return nil, err
			}
			switch {
			case ans == "skip":
				fmt.Fprintf(o.Out, "  %s: no button\n", up)
				continue
			case len([]rune(ans)) == 1:
				if c, dup := chars[ans]; dup {
					return nil, fmt.Errorf("terminal key %q is already %s", ans, c)
				}
				chars[ans] = control
				out = append(out, config.Button{Control: control, Source: "terminal", Char: ans})
				fmt.Fprintf(o.Out, "  %s: terminal key %q\n", up, ans)
				continue
			case ans != "":
				return nil, fmt.Errorf("%s button: %q is not Enter, one character or skip", up, clip(ans))
			}
		}
		if len(w.names) == 0 {
			return nil, fmt.Errorf("%s button: there is no keypad or GPIO chip to press a button on; plug the keypad in, or answer with a terminal key", up)
		}
		since := time.Now() // before the prompt: a press may follow it at once
		fmt.Fprintf(o.Out, "Press the %s button now (waiting up to %s)…\n", up, o.PressWait)
		id, in, err := w.next(ctx, since, o.PressWait, taken, func(c string, in input) {
			fmt.Fprintf(o.Out, "  %s is already %s: press another button\n", in, strings.ToUpper(c))
		})
		if errors.Is(err, errNoPress) {
			return nil, fmt.Errorf("%s button: %w within %s (watched: %s); is it wired or plugged in? Run acbridge setup again", up, errNoPress, o.PressWait, strings.Join(w.names, ", "))
		}
		if err != nil {
			return nil, err
		}
		taken[id] = control
		w.settle(ctx, id, o.PressWait)
		out = append(out, in.button(control))
		fmt.Fprintf(o.Out, "  %s: %s\n", up, in)
	}
	return out, nil
}

// clip bounds an answer quoted back in an error.
func clip(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
