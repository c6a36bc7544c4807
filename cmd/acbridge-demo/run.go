package main

import (
	"context"
	"fmt"

	"github.com/agentcall/acbridge/demo"
	"github.com/agentcall/acbridge/station/sim"
)

// runDemo is "acbridge-demo run": the bridge on the simulated kiosk,
// telling its story or driven from the keyboard.
func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "run", "[--interactive] [--verbose] [--reader inprocess|pcscd]")
	o := demo.Options{Stdin: e.Stdin, Stdout: e.Stdout}
	reader := fs.String("reader", "inprocess", "the demo's virtual reader: `inprocess` (nothing else can touch it) or pcscd (the real PC/SC stack with the vpcd virtual reader, shared with other programs)")
	fs.BoolVar(&o.Interactive, "interactive", false, "drive the demo from the keyboard: a/b tap tag A/B, p takes a photo, c cancels (a long CANCEL: the reader or camera is let go and the agent's run cancelled), other lines are said to the agent, q quits")
	verbose := fs.Bool("verbose", false, "show the daemon's log (the privacy audit lines among it) on stderr")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	switch *reader {
	case "inprocess":
		o.Reader = sim.InProcess
	case "pcscd":
		o.Reader = sim.VPCD
	default:
		fmt.Fprintf(e.Stderr, "acbridge demo: --reader must be inprocess or pcscd, not %q\nRun 'acbridge demo --help' for usage.\n", *reader)
		return 2
	}
	if *verbose {
		o.Log = e.Stderr
	}
	if err := demo.Run(ctx, &o); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo run: %v\n", err)
		return 1
	}
	return 0
}
