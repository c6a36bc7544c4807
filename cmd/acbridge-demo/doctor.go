package main

import (
	"context"
	"fmt"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/accept/acceptsim"
)

// runDoctor is "acbridge-demo doctor": acbridge doctor's environment steps
// against the simulated kiosk.
func runDoctor(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "doctor", "")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	o := accept.Options{Version: version, Title: "doctor", Only: []string{accept.GroupEnvironment}, Out: e.Stdout}
	so := acceptSim
	sim, err := acceptsim.New(ctx, &so)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo doctor: %v\n", err)
		return 1
	}
	defer sim.Close()
	sim.Apply(&o)
	// Nothing here is interactive; no technician, simulated or not.
	o.Technician = nil
	rep, err := accept.Run(ctx, &o)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge-demo doctor: %v\n", err)
		return 1
	}
	return rep.Status(nil)
}
