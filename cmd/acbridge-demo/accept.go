package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
)

// acceptSim configures the simulation; tests give the simulated tags
// canary UIDs through it.
var acceptSim acceptsim.Options

// version is what the reports name; make demo sets it as for acbridge.
var version = "dev"

// runAccept is "acbridge-demo accept": the acceptance checklist of
// acbridge accept, run against the simulated kiosk.
func runAccept(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "accept", "[--report out.json] [--junit out.xml] [--only STEPS] [--show PATH] [--replay]")
	reportPath := fs.String("report", "", "write the JSON report to `file` (a directory gets a generated name), as acbridge accept does")
	junitPath := fs.String("junit", "", "write the JUnit XML report to `file`, as acbridge accept does")
	only := fs.String("only", "", "run only these comma-separated `steps` or groups, as acbridge accept does (docs/acceptance.md)")
	show := fs.String("show", "", "write the acceptance photo to `path`; without it the photo is never kept")
	replay := fs.Bool("replay", false, "also replay the conformance walkthrough against the simulated kiosk's agent")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(e.Stderr, "acbridge-demo accept: %s\nRun 'acbridge-demo accept --help' for usage.\n", msg)
		return 2
	}
	switch {
	case *reportPath != "" && *reportPath == *junitPath:
		return usageErr("--report and --junit need different files")
	case *show != "" && (*show == *reportPath || *show == *junitPath):
		return usageErr("--show needs a file of its own")
	case accept.IsCollectorURL(*reportPath):
		return usageErr("--report: the simulated kiosk's report stays on this machine; give a file or directory")
	}
	o := accept.Options{Version: version, Only: accept.SplitOnly(*only), Replay: *replay, ShowPath: *show, Out: e.Stdout}
	so := acceptSim
	so.Out = e.Stdout
	sim, err := acceptsim.New(ctx, &so)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo accept: %v\n", err)
		return 1
	}
	defer sim.Close()
	sim.Apply(&o)
	rep, err := accept.Run(ctx, &o)
	if errors.Is(err, accept.ErrUnknownStep) {
		return usageErr(err.Error())
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo accept: %v\n", err)
		return 1
	}
	err = rep.WriteFiles(e.Stdout, *reportPath, *junitPath)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo accept: %v\n", err)
	}
	return rep.Status(err)
}
