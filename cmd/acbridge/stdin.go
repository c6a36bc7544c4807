package main

import (
	"log/slog"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/button/term"
	"github.com/agentcall/acbridge/config"
)

// terminalKeys maps the characters of the configured terminal buttons to
// their controls: talk toggles (a terminal reports no key releases), the
// others tap.
func terminalKeys(cfg *config.Config) map[rune]term.Binding {
	keys := map[rune]term.Binding{}
	for _, b := range cfg.Buttons {
		if b.Source != "terminal" {
			continue
		}
		action := term.Tap
		if b.Control == button.Talk {
			action = term.Toggle
		}
		keys[[]rune(b.Char)[0]] = term.Binding{Control: b.Control, Action: action}
	}
	return keys
}

// stdinControls gives standard input one reader when run has --stdin-text
// (lines not nil) and terminal buttons are configured. Two readers would
// split what is typed between them: a line lost to the key reader, a
// sentence's letters taken as key presses ("take a photo" opened the
// microphone and took a photo). Instead the terminal keys read the same
// lines: a line that is one key's character presses it, every other line
// is a typed turn. It returns the configuration for openButtons (without
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
