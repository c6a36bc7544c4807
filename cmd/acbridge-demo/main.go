// Command acbridge-demo runs acbridge on a simulated kiosk: the virtual
// reader, the test-pattern camera, a simulated room for microphone and
// speaker, a FIFO keypad and the reference agent on loopback (package
// station/sim). "run" is the demo make demo starts; "accept" and "doctor"
// are acbridge's acceptance and doctor against the simulated kiosk, with a
// simulated technician answering the prompts.
//
// It is a command of its own so that the shipped binary, cmd/acbridge,
// carries no simulation and no test double (docs/architecture.md, "What
// ships is what runs"); packaging never includes it.
package main

import (
	"context"
	"flag"
	"os"
	"os/signal"
	"syscall"

	"github.com/agentcall/acbridge/internal/cli"
)

// env is what a command may touch of the process: its streams.
type env = cli.Env

// program names the command in usage lines and errors.
const program = "acbridge-demo"

var commands = cli.Group{
	Name:  program,
	Intro: "acbridge-demo runs acbridge on a simulated kiosk (virtual reader, test camera, simulated room, reference agent).",
	Commands: []cli.Command{
		{Name: "run", Summary: "the demo: the bridge on the simulated kiosk tells a short story, or --interactive lets you drive it", Run: runDemo},
		{Name: "accept", Summary: "acbridge accept against the simulated kiosk, a simulated technician answering", Run: runAccept},
		{Name: "doctor", Summary: "acbridge doctor against the simulated kiosk", Run: runDoctor},
	},
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := commands.Run(ctx, &env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	return cli.NewProgramFlagSet(e, program, name, synopsis)
}

func parseFlags(e *env, fs *flag.FlagSet, args []string) (int, bool) {
	return cli.ParseFlags(e, fs, args)
}
