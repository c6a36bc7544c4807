package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Stamped by the build: go build -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "dev"
	commit  = ""
)

func init() {
	register(command{name: "version", summary: "print version, commit and Go version", run: runVersion})
}

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlagSet(e, "version", "")
	if code, ok := parseFlags(e, fs, args); !ok {
		return code
	}
	c := commit
	if c == "" {
		c = "unknown"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	fmt.Fprintf(e.Stdout, "acbridge %s (commit %s, %s, %s/%s)\n", version, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
