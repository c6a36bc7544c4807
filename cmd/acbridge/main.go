// Command acbridge bridges kiosk hardware (NFC reader, camera, microphone,
// buttons) to a remote agent speaking the AgentCall AG-UI extension 0.1.
//
// main only parses flags, builds the parts and turns SIGINT/SIGTERM into a
// context cancel; every subcommand lives in its own file and registers
// itself with register.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
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
	if len(args) == 0 {
		usage(e.Stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c, ok := commands[args[1]]; ok {
				return c.run(ctx, e, []string{"--help"})
			}
		}
		usage(e.Stdout)
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		// Never echo the word: it may be a UID or a token typed in the wrong place.
		fmt.Fprintf(e.Stderr, "acbridge: unknown command\n\n")
		usage(e.Stderr)
		return 2
	}
	return c.run(ctx, e, args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "acbridge bridges kiosk hardware to an AgentCall AG-UI 0.1 agent.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage: acbridge <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'acbridge <command> --help' for the flags of one command.")
}
