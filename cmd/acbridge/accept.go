package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/daemon"
	"github.com/agentcall/acbridge/station"
)

func init() {
	register(command{name: "accept", summary: "walk a technician through the kiosk's hardware acceptance; JSON and JUnit reports", run: runAccept})
}

// acbridgeVersion is the version the reports name.
func acbridgeVersion() string {
	if commit != "" {
		return version + " (" + commit + ")"
	}
	return version
}

func runAccept(ctx context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "accept", "[--config FILE] [--report out.json] [--junit out.xml] [--only STEPS] [--show PATH] [--replay]")
	cfgPath := fs.String("config", config.DefaultPath, "configuration `file`")
	reportPath := fs.String("report", "", "write the JSON report to `file`; a directory gets <host>-<UTC time>.json, for collecting many kiosks' reports, and an https:// URL gets it posted under the agent's network policy (docs/fleet.md)")
	junitPath := fs.String("junit", "", "write the JUnit XML report to `file` (for CI dashboards); a directory as for --report")
	only := fs.String("only", "", "run only these comma-separated `steps`: groups (environment, nfc, buttons, camera, audio, agent) or step ids such as nfc.tap1 (docs/acceptance.md)")
	simulate := fs.Bool("simulate", false, "moved: "+simulateMoved("accept"))
	show := fs.String("show", "", "write the acceptance photo to `path` to look at it; without it the photo is never kept")
	replay := fs.Bool("replay", false, "also replay the conformance walkthrough against the configured agent")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(e.Stderr, "acbridge accept: %s\nRun 'acbridge accept --help' for usage.\n", msg)
		return 2
	}
	switch {
	case *simulate:
		return usageErr(simulateMoved("accept"))
	case *reportPath != "" && *reportPath == *junitPath:
		return usageErr("--report and --junit need different files")
	case *show != "" && (*show == *reportPath || *show == *junitPath):
		return usageErr("--show needs a file of its own")
	}
	o := accept.Options{Version: acbridgeVersion(), Only: accept.SplitOnly(*only), Replay: *replay, ShowPath: *show, Out: e.Stdout}
	cfg, err := station.Load(*cfgPath, nil)
	if err != nil {
		// The hardware can still be checked with the defaults;
		// env.config fails with the reason and the fix.
		o.ConfigErr, cfg = err, config.Defaults()
	}
	o.Config, o.ConfigPath = cfg, *cfgPath
	term := accept.NewTerminal(e.Stdin, e.Stdout)
	defer term.Close()
	o.Technician = term
	rep, err := accept.Run(ctx, &o)
	if errors.Is(err, accept.ErrUnknownStep) {
		return usageErr(err.Error())
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge accept: %v\n", err)
		return 1
	}
	if !accept.IsCollectorURL(*reportPath) {
		return finishReport(e, rep, *reportPath, *junitPath)
	}
	status := finishReport(e, rep, "", *junitPath)
	pol, err := daemon.AgentPolicy(&o.Config.Agent)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge: %v\n", err)
		return 1
	}
	shown, err := rep.Post(ctx, *reportPath, pol)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge: %v\n", err)
		return 1
	}
	fmt.Fprintf(e.Stdout, "report: posted to %s\n", shown)
	return status
}

// finishReport writes the reports asked for and returns the exit status:
// 0 only when no step failed and the reports were written.
func finishReport(e *env, rep *accept.Report, jsonPath, junitPath string) int {
	err := rep.WriteFiles(e.Stdout, jsonPath, junitPath)
	if err != nil {
		fmt.Fprintf(e.Stderr, "acbridge: %v\n", err)
	}
	return rep.Status(err)
}
