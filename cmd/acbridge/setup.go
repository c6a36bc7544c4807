package main

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/setup"
)

func init() {
	register(command{name: "setup", summary: "first run: choose the reader, camera and sound devices, learn each button by pressing it, write the configuration", run: runSetup})
}

// pathList is a repeatable flag.
type pathList []string

func (p *pathList) String() string     { return strings.Join(*p, ",") }
func (p *pathList) Set(s string) error { *p = append(*p, s); return nil }

func runSetup(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "setup", "[--config FILE] [--answers FILE] [--token-file FILE] [--keypad DEVICE]… [--press-wait DURATION]")
	cfgPath := fs.String("config", config.DefaultPath, "the configuration `file` to write; one already there is kept as FILE.<UTC time>.bak")
	answers := fs.String("answers", "", "take every answer from this TOML `file` instead of asking (docs/setup.md); buttons are still learned by pressing them")
	tokenPath := fs.String("token-file", "", "the `file` a token typed in is stored in, mode 0600 (default: token beside --config)")
	var keypads pathList
	fs.Var(&keypads, "keypad", "also watch this input `device` for button presses (repeatable; /dev/input/by-id is always watched)")
	wait := fs.Duration("press-wait", setup.DefaultPressWait, "how long to wait for each button to be pressed")
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(fs.Output(), setupHelp)
	}
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	o := &setup.Options{In: e.Stdin, Out: e.Stdout, ConfigPath: *cfgPath, TokenPath: *tokenPath, Keypads: keypads, PressWait: *wait,
		Doctor: func(ctx context.Context, path string) bool {
			return runDoctor(ctx, e, []string{"--config", path}) == 0
		},
		Accept: func(ctx context.Context, path string) bool {
			return runAccept(ctx, e, []string{"--config", path}) == 0
		},
	}
	if *answers != "" {
		a, err := setup.ReadAnswers(*answers)
		if err != nil {
			fmt.Fprintf(e.Stderr, "acbridge setup: %v; nothing was written\n", err)
			return 2
		}
		o.Answers = a
	}
	if err := setup.Run(ctx, o); err != nil {
		fmt.Fprintf(e.Stderr, "\nacbridge setup: %v\n", err)
		return 1
	}
	return 0
}

var _ flag.Value = (*pathList)(nil)

const setupHelp = `
setup lists the hardware acbridge can use and asks, one line at a time:
which NFC reader, camera, microphone and speaker (a number from the list, a
name as listed, or none); then, for each button the chosen devices need
(SCAN, PHOTO, TALK, CANCEL), it watches every key of every keypad and every
free line of the chosen GPIO chip and records the one pressed (press Enter,
then the button; or type one character to make it a key of the terminal,
or skip); then the agent's URL and its token (not shown as you type; stored
mode 0600). Nothing is written until every answer is good. It writes a
commented configuration, keeping the one it replaces, runs doctor and offers
the acceptance. GPIO buttons are taken as wired between the line and ground.
`
