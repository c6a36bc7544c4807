// Package hostileagent is a misbehaving AgentCall AG-UI 0.1 agent for tests:
// it serves a valid A2A card (spec "Discovery", websocket
// transport on plain http, so the client under test needs
// allow_insecure_local) and then breaks the contract on the AG-UI WebSocket
// in one chosen Mode — a text.delta flood, runs nobody asked for, case-variant duplicate JSON keys,
// terminal control characters, a frame header declaring 1 GiB, a ping flood,
// or closing at once.
//
// It is written from the spec, not from package agent, and frames the
// WebSocket itself (RFC 6455) instead of using a library: a good library
// refuses to send what these modes must send (a 1 GiB length header with no
// body to match, pings without end), and a shared implementation would share
// the client's blind spots. It records every text frame the client sent and
// the close status the client gave, so a test can tell whether the client
// cancelled the run, ended the session or closed the connection.
//
// It is a test peer: bounds on what it reads from the client are generous
// (1 MiB per message) rather than the 0.1 ones, and it never validates the
// client beyond recording what arrived.
package hostileagent
