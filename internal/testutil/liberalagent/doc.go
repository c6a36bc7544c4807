// Package liberalagent is a correct AgentCall AG-UI 0.1 agent for tests
// that uses the room the contract leaves (spec "Session and input",
// "Agent-requested collection", "Version and migration"): failure codes
// of its own choosing ("RATE_LIMITED", 200 characters), texts, prompts and
// segment IDs far longer than a screen line, an unknown event type with a
// long name, and an opaque interactionId with a space, non-ASCII, a
// newline and 300 characters. None of that is forbidden by the contract,
// so a client must keep the session, shorten what it shows, and echo the
// interactionId byte-exact.
//
// It serves an A2A card and the AG-UI endpoint over WebSocket or over the
// agentcall-webrtc-0.1 profile on plain http (the client under test needs
// allow_insecure_local), and records the client's frames. It is written
// from the spec, not from package agent, so that it does not share the
// reference agent's choices.
package liberalagent
