// Command acbridge-check is the agent checker alone: "acbridge conformance"
// and "acbridge replay" without the daemon's devices, so that it builds
// with CGO_ENABLED=0 (no libopus, no miniaudio, no PC/SC) for agent
// authors on any machine Go targets:
//
//	CGO_ENABLED=0 go install github.com/agentcall/acbridge/cmd/acbridge-check@latest
//	acbridge-check replay --agent https://agent.example.net
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentcall/acbridge/conformance/conformancecmd"
	"github.com/agentcall/acbridge/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// checker lists the checker's commands.
var checker = cli.Group{
	Name:  "acbridge-check",
	Intro: "acbridge-check checks an AgentCall AG-UI 0.1 agent (acbridge's conformance and replay).",
	Commands: []cli.Command{
		{Name: "conformance", Summary: conformancecmd.ConformanceSummary, Run: conformancecmd.Conformance},
		{Name: "replay", Summary: conformancecmd.ReplaySummary, Run: conformancecmd.Replay},
	},
}

// run dispatches to a command; exit status 2 means a usage error.
func run(ctx context.Context, e *cli.Env, args []string) int { return checker.Run(ctx, e, args) }
