package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// Command is one subcommand of a Group.
type Command struct {
	Name, Summary string
	// Run returns the process exit status; args exclude the name.
	Run func(ctx context.Context, e *Env, args []string) int
}

// Group is a command made of subcommands ("acbridge", "acbridge keys",
// "acbridge-check"): it dispatches on the first argument and prints the
// list. An unknown name is never echoed: it may be a tag UID or a token
// typed in the wrong place.
type Group struct {
	// Name is how the usage calls the group, e.g. "acbridge keys".
	Name string
	// Intro is printed above the usage line; empty prints nothing.
	Intro string
	// Noun names the parts in the usage; empty means "command".
	Noun string
	// Commands are listed in this order.
	Commands []Command
}

func (g *Group) noun() string {
	if g.Noun == "" {
		return "command"
	}
	return g.Noun
}

// Run dispatches args; exit status 2 means a usage error. "help NAME"
// shows NAME's flags.
func (g *Group) Run(ctx context.Context, e *Env, args []string) int {
	if len(args) == 0 {
		g.Usage(e.Stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help", "help":
		if len(args) > 1 {
			if c := g.find(args[1]); c != nil {
				return c.Run(ctx, e, []string{"--help"})
			}
		}
		g.Usage(e.Stdout)
		return 0
	}
	c := g.find(args[0])
	if c == nil {
		fmt.Fprintf(e.Stderr, "%s: unknown %s (not repeated here, since it may be a tag UID or a token)\n\n", g.Name, g.noun())
		g.Usage(e.Stderr)
		return 2
	}
	return c.Run(ctx, e, args[1:])
}

func (g *Group) find(name string) *Command {
	for i := range g.Commands {
		if g.Commands[i].Name == name {
			return &g.Commands[i]
		}
	}
	return nil
}

// Usage prints the intro, the usage line and the list of commands.
func (g *Group) Usage(w io.Writer) {
	if g.Intro != "" {
		fmt.Fprintln(w, strings.TrimRight(g.Intro, "\n"))
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "Usage: %s <%s> [flags]\n\n", g.Name, g.noun())
	fmt.Fprintf(w, "%ss:\n", strings.ToUpper(g.noun()[:1])+g.noun()[1:])
	for _, c := range g.Commands {
		fmt.Fprintf(w, "  %-12s %s\n", c.Name, c.Summary)
	}
	fmt.Fprintf(w, "\nRun '%s <%s> --help' for the flags of one %s.\n", g.Name, g.noun(), g.noun())
}
