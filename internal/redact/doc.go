// Package redact takes secrets (the agent's bearer token) out of text a
// peer supplied before it reaches an output: an error quoting a request
// header back, an SDP refusal body, a close reason, an agent's failure
// message or answer. It implements promise (1) of the design, that tokens
// never reach a log, file, screen or metric, for the spec's "failure ...
// must not leak credentials" (AgentCall AG-UI 0.1, "Session and input"),
// which a hostile agent would not keep.
//
// Matching ignores ASCII case, since a peer may echo a header lowercased.
package redact
