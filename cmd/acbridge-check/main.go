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
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentcall/acbridge/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cli.Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run dispatches to a command; exit status 2 means a usage error.
func run(ctx context.Context, e *cli.Env, args []string) int {
	if len(args) == 0 {
		usage(e.Stderr)
		return 2
	}
	switch args[0] {
	case "conformance":
		return cli.Conformance(ctx, e, args[1:])
	case "replay":
		return cli.Replay(ctx, e, args[1:])
	case "-h", "-help", "--help", "help":
		usage(e.Stdout)
		return 0
	}
	// Never echo the word: it may be a token typed in the wrong place.
	fmt.Fprintf(e.Stderr, "acbridge-check: unknown command\n\n")
	usage(e.Stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "acbridge-check checks an AgentCall AG-UI 0.1 agent (acbridge's conformance and replay).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: acbridge-check <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  %-12s %s\n", "conformance", cli.ConformanceSummary)
	fmt.Fprintf(w, "  %-12s %s\n", "replay", cli.ReplaySummary)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'acbridge-check <command> --help' for the flags of one command.")
}
