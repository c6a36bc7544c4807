// Package client is acbridge's side of the AgentCall AG-UI extension 0.1
// (shared/spec/agentcall-agui-0.1.md): discovery of the agent card under a
// network policy ("Discovery", "WebSocket and WebRTC": HTTPS, DNS/IP checks,
// no redirects, timeouts, bounded bodies, bearer only in the Authorization
// header of the card's own origin), the transports, and the session engine
// ("Session and input", "Agent-requested collection") built on
// protocol.Session.
//
// The session engine runs unchanged over any Transport: a WebSocket today,
// the WebRTC data channel (webrtc*.go: one Opus track each way, the
// agentcall.events channel, push-to-talk explicit turns or, without them,
// engagements a press opens). Events reach the owner through one channel
// (Session.Events); nothing else calls back. Every run is bounded
// (RunBudget, budget.go): the spec bounds each event, not how many an
// agent sends, so the engine cancels a run past its budget and ends the
// session when the agent goes on.
package client
