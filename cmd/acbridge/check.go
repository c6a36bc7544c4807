package main

import "github.com/agentcall/acbridge/internal/cli"

// The agent checker's commands live in internal/cli, which builds without
// cgo, so that cmd/acbridge-check offers the same two.
func init() {
	register(command{name: "conformance", summary: cli.ConformanceSummary, run: cli.Conformance})
	register(command{name: "replay", summary: cli.ReplaySummary, run: cli.Replay})
}
