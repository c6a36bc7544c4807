package station

import (
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/evdev"
	"github.com/agentcall/acbridge/button/gpio"
	"github.com/agentcall/acbridge/button/term"
	"github.com/agentcall/acbridge/config"
)

// ButtonOptions says where the buttons' terminal keys read.
type ButtonOptions struct {
	// Stdin is what terminal buttons read (nil: terminal buttons are left
	// out, as during an acceptance, where the keyboard answers prompts).
	Stdin io.Reader
	// Lines, if not nil, is standard input read line by line (run
	// --stdin-text): terminal keys then read those lines instead of Stdin;
	// see stdinControls.
	Lines <-chan string
	// Unbound, if set, is told once when a character that is no terminal
	// button's key is typed on Stdin (see term.Options.Unbound).
	Unbound func(keys string)
	Logger  *slog.Logger // nil: discard
}

// OpenButtons opens one source per configured backend and merges them; nil
// when no button is configured. texts are the typed turns left over from
// Lines (Lines itself when there are no terminal keys).
func OpenButtons(cfg *config.Config, o *ButtonOptions) (src button.Source, texts <-chan string, err error) {
	srcs, texts, err := openButtons(cfg, o)
	if err != nil || len(srcs) == 0 {
		return nil, texts, err
	}
	return button.Merge(srcs...), texts, nil
}

func openButtons(cfg *config.Config, o *ButtonOptions) ([]button.Source, <-chan string, error) {
	if o == nil {
		o = &ButtonOptions{}
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	btnCfg, keys, texts, err := stdinControls(cfg, o.Lines, log)
	if err != nil {
		return nil, nil, err
	}
	srcs, err := openSources(btnCfg, o.Stdin, o.Unbound, log)
	if err != nil {
		if keys != nil {
			keys.Close()
		}
		return nil, nil, err
	}
	if keys != nil {
		srcs = append(srcs, keys)
	}
	return srcs, texts, nil
}

// openSources opens one source per configured backend. Check has refused
// key names and biases that cannot parse; they are parsed again here so
// that a configuration built in code gets the same errors.
func openSources(cfg *config.Config, stdin io.Reader, unbound func(string), log *slog.Logger) ([]button.Source, error) {
	var lines []gpio.Line
	evdevs := map[string]*evdev.Options{}
	var order []string // evdev devices in configuration order
	var srcs []button.Source
	// One debouncer serves every GPIO line: it gets the longest configured
	// debounce and cancel's long press (the only control that has one).
	gpioButton := button.Options{Logger: log.With("part", "button")}
	for _, b := range cfg.Buttons {
		bo := button.Options{Debounce: b.Debounce.Duration, LongPress: b.LongPress.Duration, Logger: log.With("part", "button")}
		switch b.Source {
		case "gpio":
			gpioButton.Debounce = max(gpioButton.Debounce, bo.Debounce)
			if b.Control == "cancel" || gpioButton.LongPress == 0 {
				gpioButton.LongPress = bo.LongPress
			}
			bias, err := gpio.ParseBias(b.Bias)
			if err != nil {
				return closeAll(srcs, err)
			}
			lines = append(lines, gpio.Line{Control: b.Control, Chip: b.Chip, Offset: b.Line, ActiveLow: b.ActiveLow, Bias: bias})
		case "evdev":
			code, err := evdev.ParseKey(b.Key)
			if err != nil {
				return closeAll(srcs, err)
			}
			id := b.Device + "\x00" + b.Name
			o := evdevs[id]
			if o == nil {
				o = &evdev.Options{Path: b.Device, Name: b.Name, Keys: map[uint16]string{}, Grab: b.Grab, Button: bo}
				evdevs[id] = o
				order = append(order, id)
			}
			o.Keys[code] = b.Control
		}
	}
	if len(lines) > 0 {
		s, err := gpio.Open(&gpio.Options{Lines: lines, Button: gpioButton})
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	for _, id := range order {
		o := evdevs[id]
		s, err := evdev.Open(o)
		if errors.Is(err, fs.ErrNotExist) {
			// Not plugged in yet: the kiosk starts with its other controls
			// and takes the keypad when it appears (the status line names
			// it meanwhile, see MissingDevices).
			log.Warn("keypad missing: its buttons work once it is plugged in", "err", err)
			srcs = append(srcs, button.Await(func() (button.Source, error) { return evdev.Open(o) }, KeypadRetry, log.With("part", "button")))
			continue
		}
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	if termKeys := terminalKeys(cfg); len(termKeys) > 0 && stdin != nil {
		s, err := term.New(stdin, &term.Options{Keys: termKeys, Unbound: unbound, Button: button.Options{Logger: log.With("part", "button")}})
		if err != nil {
			return closeAll(srcs, err)
		}
		srcs = append(srcs, s)
	}
	return srcs, nil
}

func closeAll(srcs []button.Source, err error) ([]button.Source, error) {
	for _, s := range srcs {
		s.Close()
	}
	return nil, err
}

// KeypadRetry is how often a keypad missing at start is looked for.
const KeypadRetry = 2 * time.Second

// DefaultCancelChar is the terminal's cancel key when terminal buttons are
// configured and none of them is cancel.
const DefaultCancelChar = 'c'

// terminalKeys maps the characters of the configured terminal buttons to
// their controls: talk toggles (a terminal reports no key releases), cancel
// is a long tap (cancel acts on a long press, and a key cannot be held), the
// others tap. When terminal buttons are configured without a cancel, c is
// cancel unless another button took it, so a run waiting for a collection
// can always be cancelled from the keyboard.
func terminalKeys(cfg *config.Config) map[rune]term.Binding {
	keys := map[rune]term.Binding{}
	hasCancel := false
	for _, b := range cfg.Buttons {
		if b.Source != "terminal" {
			continue
		}
		action := term.Tap
		switch b.Control {
		case button.Talk:
			action = term.Toggle
		case button.Cancel:
			action = term.LongTap
			hasCancel = true
		}
		keys[[]rune(b.Char)[0]] = term.Binding{Control: b.Control, Action: action}
	}
	if _, taken := keys[DefaultCancelChar]; len(keys) > 0 && !hasCancel && !taken {
		keys[DefaultCancelChar] = term.Binding{Control: button.Cancel, Action: term.LongTap}
	}
	return keys
}

// stdinControls gives standard input one reader when run has --stdin-text
// (lines not nil) and terminal buttons are configured. Two readers would
// split what is typed between them: a line lost to the key reader, a
// sentence's letters taken as key presses ("take a photo" opened the
// microphone and took a photo). Instead the terminal keys read the same
// lines: a line that is one key's character presses it, every other line
// is a typed turn. It returns the configuration for openSources (without
// the terminal buttons, then), the key source (nil if none) and the typed
// turns (lines itself when there are no terminal keys).
func stdinControls(cfg *config.Config, lines <-chan string, log *slog.Logger) (*config.Config, button.Source, <-chan string, error) {
	keys := terminalKeys(cfg)
	if lines == nil || len(keys) == 0 {
		return cfg, nil, lines, nil
	}
	src, err := term.FromLines(lines, &term.Options{Keys: keys, Button: button.Options{Logger: log.With("part", "button")}})
	if err != nil {
		return nil, nil, nil, err
	}
	rest := *cfg
	rest.Buttons = nil
	for _, b := range cfg.Buttons {
		if b.Source != "terminal" {
			rest.Buttons = append(rest.Buttons, b)
		}
	}
	log.Info("standard input: a line of one key's character presses that control; other lines are typed turns", "keys", term.Describe(keys))
	return &rest, src, src.Texts(), nil
}
