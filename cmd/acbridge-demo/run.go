package main

import (
	"context"
	"fmt"

	"github.com/agentcall/acbridge/demo"
)

// runDemo is "acbridge-demo run": the bridge on the simulated kiosk,
// telling its story or driven from the keyboard.
func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "run", "[--interactive] [--verbose]")
	o := demo.Options{Stdin: e.Stdin, Stdout: e.Stdout}
	fs.BoolVar(&o.Interactive, "interactive", false, "drive the demo from the keyboard: a/b tap tag A/B, p takes a photo, c cancels, other lines are said to the agent, q quits")
	verbose := fs.Bool("verbose", false, "show the daemon's log (the privacy audit lines among it) on stderr")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
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
