// Package conformance runs AgentCall AG-UI 0.1 fixture files (spec "Public
// artifacts": protocol/0.1/physical-conformance.json) against the protocol
// package: every card must be accepted or rejected as the file says, every
// observation accepted or rejected with exactly the expected codes, and the
// walkthrough trace must be consistent with the session rules
// (protocol.Session). The public fixture file is embedded, so the binary can
// check itself anywhere.
package conformance
