// Package agent is acbridge's reference agent: the server side of the
// AgentCall AG-UI extension 0.1 (shared/spec/agentcall-agui-0.1.md),
// behaving as the spec's "Independent reference proof" so that clients can
// be tested end to end on one machine and the public golden trace
// (physical-conformance.json, "walkthrough") replays against it, with
// identical texts except that every teaching proposal names its label
// (conformance.ReferenceWalkthrough).
//
// As the spec's reference agent, it is text-only by default ("Its ordinary
// public review profile remains text-only"): Options.Physical (acbridge
// agent --physical) opts in to the NFC/photo developer profile.
// Options.LegacyURI serves the legacy extension identifier for rollback
// tests with an older client.
//
// An Agent is an http.Handler serving an A2A 1.0 Agent Card at
// /.well-known/agent-card.json (spec "Discovery") and the AG-UI WebSocket
// endpoint at /agui (spec "WebSocket and WebRTC", "Session and input",
// "Agent-requested collection"). The behaviour lives in a transport-free
// conversation that takes client frames and returns server envelopes; the
// WebSocket endpoint is only an adapter, so a WebRTC data channel can drive
// the same conversation. Every client message passes protocol.Session.Client
// before it is acted on, and every envelope passes protocol.Session.Server
// before it is sent, so ordering, turns, runs and interactions follow the
// rules the client and the trace checker use.
//
// # Memory
//
// Session-local only: at most 32 labels (MaxLabels) of at most 256
// characters (MaxLabelLen), keyed by exact objectRef equality; nothing is
// shared between sessions, nothing is written to disk, and everything is
// dropped on session.end or disconnect. A rejected message never reaches
// the memory.
//
// # Commands
//
// A user.turn text is matched case-insensitively on its command words:
//
//	scan an object          interaction.requested physical.nfc.scan, id turn-<N>-nfc
//	take a photo            interaction.requested physical.photo.capture, id turn-<N>-photo
//	teach object LABEL      stage LABEL for the current object (the last scanned objectRef)
//	confirm object          store the staged proposal
//	cancel teaching         drop the staged proposal
//
// A request is issued only for a requestable modality (negotiated ∩ the
// card's agentRequests); otherwise the run answers that it can't ask. The
// run that asked stays open until the matching observation (interaction
// .resolved "answered", "Received the user-collected observation.",
// run.completed — no new run, as in the trace) or response.cancel
// (interaction.resolved "cancelled", run.completed). Any other text gets a
// short generic answer.
//
// # Texts
//
// The trace shows the texts below; the rules that pick them are ours, the
// simplest consistent with every step of the trace.
//
// A scanned object (a user.observation with an object and no
// interactionId) becomes the current object. If a proposal is staged for a
// different object, the proposal is dropped and the answer ends with
// "; previous proposal invalidated." instead of ".". The answer is:
//
//   - a stored reference: "This is LABEL."
//   - an unknown reference not scanned before in this session: "Unknown
//     object; the prior reference's label does not match." when the
//     previous current object has a label, else "Unknown object; no
//     association stored."
//   - an unknown reference scanned before: "This object remains unknown."
//     when it already was the current object, else "This other object still
//     remains unknown." (the user came back to it from another object).
//
// An observation answering a request updates the current object the same
// way but answers only "Received the user-collected observation." (with
// the invalidation suffix when it dropped a proposal). A photo alone gets
// "Received the photo; nothing stored.".
//
// teach object LABEL answers "Proposed LABEL; confirm object to save for
// this session." the first time a proposal is staged in a session — it is
// the one place the confirm command is explained — and "Proposal staged,
// not stored: LABEL." for every later one, replacements included: every
// proposal shows what will be remembered. (The public walkthrough's later
// proposals say only "Proposal staged, not stored."; replaying it with
// --strict-text reports that difference.) It refuses,
// staging nothing and keeping any earlier proposal, without a current
// object, with an empty label, a label over 256 characters or with control
// characters, and for a new object once 32 labels are stored ("Session
// memory is full (32 labels); nothing staged."). confirm object answers
// "Confirmed LABEL for this session." or, without a proposal, "No current
// proposal; nothing stored."; cancel teaching answers "Proposal
// cancelled." or "No current proposal; nothing to cancel.". response.cancel
// also drops a staged proposal (spec: it "cancels the active run and
// pending collection/proposal").
//
// # Invalid input
//
// A rejected message gets a failure carrying protocol's code (schema,
// negotiation, image checks, turn order, unmatched/stale/repeated or
// wrong-modality answers, run.active) and changes nothing. Before
// session.start is accepted there is no session: the failure is sequence 1
// and the connection closes (1008), since session.established must be
// sequence 1. A frame that breaks a transport rule (over 131,072 bytes,
// binary, not UTF-8) gets a failure and a close with the status
// wsframe.CloseStatus names (1009, 1003, 1007).
//
// # Transports and cgo
//
// Both transports drive the same conversation through one loop
// (converse) and one way out (deliver), behind sessionConn. Unlike
// package client, this package needs cgo: the reference agent encodes its
// reply voice and decodes the client's turns with libopus (package audio),
// recovering a lost frame from the next packet's in-band FEC copy (RFC
// 6716 §4.2.4) as the kiosk does, so that a test measures what a kiosk's
// microphone gets through a lossy link (AudioTurn.Recovered).
// The agent checker does not import it (package conformance only in
// tests), so cmd/acbridge-check still builds with CGO_ENABLED=0.
package agent
