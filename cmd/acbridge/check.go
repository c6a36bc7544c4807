package main

import "github.com/agentcall/acbridge/conformance/conformancecmd"

// The agent checker's commands live in conformance/conformancecmd, which builds without
// cgo, so that cmd/acbridge-check offers the same two.
func init() {
	register(command{name: "conformance", summary: conformancecmd.ConformanceSummary, run: conformancecmd.Conformance})
	register(command{name: "replay", summary: conformancecmd.ReplaySummary, run: conformancecmd.Replay})
}
