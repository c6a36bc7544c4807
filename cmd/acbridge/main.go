// Command acbridge bridges kiosk hardware (NFC reader, camera, microphone,
// buttons) to a remote agent speaking the AgentCall AG-UI extension 0.1.
//
// main only parses flags, builds the parts and turns SIGINT/SIGTERM into a
// context cancel; every subcommand lives in its own file and registers
// itself with register.
package main

import (
	"context"
	"maps"
	"os"
	"os/signal"
	"slices"
	"syscall"

	"github.com/agentcall/acbridge/internal/cli"
)

// env is what a subcommand may touch of the process: its streams.
type env = cli.Env

type command struct {
	name    string
	summary string
	// run returns the process exit status. args excludes the subcommand name.
	run func(ctx context.Context, e *env, args []string) int
}

var commands = map[string]command{}

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("acbridge: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, &env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}, os.Args[1:])
	stop()
	os.Exit(code)
}

// runMain dispatches to a subcommand; exit status 2 means a usage error.
func runMain(ctx context.Context, e *env, args []string) int {
	g := cli.Group{Name: "acbridge", Intro: "acbridge bridges kiosk hardware to an AgentCall AG-UI 0.1 agent."}
	for _, name := range slices.Sorted(maps.Keys(commands)) {
		c := commands[name]
		g.Commands = append(g.Commands, cli.Command{Name: c.name, Summary: c.summary, Run: c.run})
	}
	return g.Run(ctx, e, args)
}
