package main

import (
	"context"
	"fmt"
	"slices"
)

// The simulated kiosk (demo, accept --simulate, doctor --simulate) is not
// in the shipped binary: it is cmd/acbridge-demo, which make demo builds
// (docs/architecture.md, "What ships is what runs"). The old spellings
// stay only to say so in one line.
const (
	demoMoved = "acbridge demo moved to acbridge-demo run (run make demo): the shipped binary carries no simulation"
)

// simulateMoved is the one line for command's --simulate.
func simulateMoved(command string) string {
	return "--simulate moved to acbridge-demo " + command + " (make demo builds bin/acbridge-demo): the shipped binary carries no simulation"
}

func init() {
	register(command{name: "demo", summary: "moved to acbridge-demo run (make demo)", run: runDemoMoved})
}

func runDemoMoved(_ context.Context, e *env, args []string) int {
	// Only --help is parsed: the old demo flags (--interactive) get the
	// same one line as no flags.
	if slices.ContainsFunc(args, func(a string) bool { return a == "-h" || a == "-help" || a == "--help" }) {
		code, _ := parseFlags(e, newFlagSet(e, "demo", "(moved: make demo runs acbridge-demo run)"), []string{"--help"})
		return code
	}
	fmt.Fprintln(e.Stderr, demoMoved)
	return 2
}
