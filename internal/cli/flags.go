// Package cli holds what acbridge's commands share: the process's streams,
// flag parsing that never echoes what was typed, and command groups. It
// builds without cgo, as cmd/acbridge-check needs.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// Env is what a subcommand may touch of the process: its streams. Passing
// it in (instead of using os.Stdout) lets tests run subcommands in-process
// and check every byte they print (canary tests).
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// NewFlagSet returns a flag set that never prints by itself and never exits
// the process: parseFlags decides what the operator sees.
func NewFlagSet(e *Env, name, synopsis string) *flag.FlagSet {
	return NewProgramFlagSet(e, "acbridge", name, synopsis)
}

// NewProgramFlagSet is NewFlagSet for a command of another program
// ("acbridge-demo run").
func NewProgramFlagSet(e *Env, program, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(program+" "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: %s %s %s\n\n", program, name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// ParseFlags parses args; it returns (status, false) when the caller must
// return status at once: 0 after --help, 2 after a usage error.
//
// Usage errors never repeat what was typed: a technician may paste a tag
// UID or a token into the wrong place, and the flag package would echo it
// back into a terminal log. Only names of flags the command defines are
// printed.
func ParseFlags(e *Env, fs *flag.FlagSet, args []string) (int, bool) {
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(e.Stdout)
		fs.Usage()
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(e.Stderr, "%s: %s\nRun '%s --help' for usage.\n", fs.Name(), describeFlagError(fs, err), fs.Name())
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(e.Stderr, "%s: unexpected argument (%d extra); flags go before nothing else\nRun '%s --help' for usage.\n", fs.Name(), fs.NArg(), fs.Name())
		return 2, false
	}
	return 0, true
}

// describeFlagError restates a flag package error naming only defined flags.
func describeFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	known := func(after string) (string, bool) {
		i := strings.Index(msg, after)
		if i < 0 {
			return "", false
		}
		name := strings.TrimLeft(msg[i+len(after):], "-")
		if j := strings.IndexAny(name, ": "); j >= 0 {
			name = name[:j]
		}
		return name, fs.Lookup(name) != nil
	}
	for _, after := range []string{"for flag ", "for -"} {
		if name, ok := known(after); ok {
			return "bad flag value for --" + name
		}
	}
	if name, ok := known("flag needs an argument: "); ok {
		return "flag --" + name + " needs a value"
	}
	return "unknown flag or bad flag value"
}
