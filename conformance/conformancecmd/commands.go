package conformancecmd

// One-line summaries of the checker's commands, for a command list.
const (
	ConformanceSummary = "check a fixture file (default: the public 0.1 fixtures) against the contract"
	ReplaySummary      = "play a walkthrough trace against a live agent and check its answers"
)
