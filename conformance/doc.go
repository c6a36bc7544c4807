// Package conformance runs AgentCall AG-UI 0.1 fixture files (spec "Public
// artifacts": protocol/0.1/physical-conformance.json) against the protocol
// package: every card must be accepted or rejected as the file says, every
// observation accepted or rejected with exactly the expected codes, and the
// walkthrough trace must be consistent with the session rules
// (protocol.Session). Replay plays a trace against a live agent. Both judge
// by the contract's own equivalences (spec "Session and input": optional
// speech.segment, text over text.delta events, strictly increasing
// sequences, unknown additive fields and event types ignored) and list each
// tolerance they apply; their strict modes compare in lockstep. The public
// fixture file is embedded, so the binary can check itself anywhere.
package conformance
