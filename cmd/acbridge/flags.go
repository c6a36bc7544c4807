package main

import (
	"encoding/json"
	"flag"
	"fmt"

	"github.com/agentcall/acbridge/internal/cli"
)

// newFlagSet returns a flag set that never prints by itself and never exits
// the process: parseFlags decides what the operator sees.
func newFlagSet(e *env, name, synopsis string) *flag.FlagSet {
	return cli.NewFlagSet(e, name, synopsis)
}

// parseFlags parses args; it returns (status, false) when the caller must
// return status at once: 0 after --help, 2 after a usage error.
func parseFlags(e *env, fs *flag.FlagSet, args []string) (int, bool) {
	return cli.ParseFlags(e, fs, args)
}

// printJSON prints v indented for --json and returns status, or 1 when
// stdout fails.
func printJSON(e *env, name string, v any, status int) int {
	enc := json.NewEncoder(e.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		fmt.Fprintf(e.Stderr, "acbridge %s: writing JSON: %v\n", name, err)
		return 1
	}
	return status
}
