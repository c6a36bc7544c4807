package main

import (
	"context"
	"fmt"
	"io"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{name: "doctor", summary: "check pcscd, polkit, the pn533 driver, device permissions, keystore, clock and power supply; each problem with its fix", run: runDoctor})
}

// runDoctor runs the acceptance's environment steps alone: nothing to
// press or tap, done in a second or two. It is the first thing to run when
// "the reader doesn't work".
func runDoctor(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "doctor", "[--config FILE] [--json]")
	cfgPath := fs.String("config", config.DefaultPath, "configuration `file`")
	asJSON := fs.Bool("json", false, "print the findings as the JSON acceptance report")
	simulate := fs.Bool("simulate", false, "moved: "+simulateMoved("doctor"))
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	if *simulate {
		fmt.Fprintf(e.Stderr, "acbridge doctor: %s\nRun 'acbridge doctor --help' for usage.\n", simulateMoved("doctor"))
		return 2
	}
	o := accept.Options{Version: acbridgeVersion(), Title: "doctor", Only: []string{accept.GroupEnvironment}, Out: e.Stdout}
	cfg, err := station.Load(*cfgPath, nil)
	if err != nil {
		o.ConfigErr, cfg = err, config.Defaults()
	}
	o.Config, o.ConfigPath = cfg, *cfgPath
	if *asJSON {
		o.Out = io.Discard
	}
	rep, err := accept.Run(ctx, &o)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge doctor: %v\n", err)
		return 1
	}
	if *asJSON {
		if err := rep.WriteJSON(e.Stdout); err != nil {
			fmt.Fprintf(e.Stderr, "acbridge doctor: %v\n", err)
			return 1
		}
	}
	if !rep.Accepted {
		return 1
	}
	return 0
}
