// Package protocol is the single source of truth for the AgentCall AG-UI
// extension 0.1 wire (spec: shared/spec/agentcall-agui-0.1.md): Go types for
// the card's extension params, every client message and server event, the
// physical observation and the object passport; the five JSON Schemas the
// spec lists ("Public artifacts"), embedded and enforced with
// santhosh-tekuri/jsonschema; and the semantic rules JSON Schema cannot
// state. It does no I/O and is shared by the client and the reference agent.
//
// The schemas under schemas/ are acbridge's reconstruction of the published
// artifacts from the spec text and its fixtures. Where the spec states a
// bound it is in the schema. Where it only says "bounded" (prompts, failure
// code and message, observationId) or says nothing (texts, identifiers,
// context), the schema sets no bound of ours: the contract forbids tighter
// bounds within 0.1, and the 128 KiB frame bounds every value. Receivers
// shorten what they show (Shorten) or log (ForLog) instead.
// docs/conformance.md lists the few bounds that remain, each with the
// reason a correct peer never meets it.
//
// Parsers build their structs from exactly the value the schema validated
// (decodeExact): a member whose key only case-folds to a field name is an
// unknown member, ignored, never folded onto the validated field.
//
// Every rejection is an *Error with a stable code. The fixtures name six:
// observation.schema, observation.negotiation, image.base64,
// image.integrity, image.jpeg and image.dimensions. The others are ours,
// listed with the Code constants; messages are bounded, written here and
// never copied from the input, so they cannot echo image bytes or
// credentials.
//
// Server sequences are not a choice: the spec says each envelope after
// session.established (sequence 1) has a strictly increasing positive
// sequence, so gaps are accepted and a repeat or a decrease is a protocol
// error (sequence.order) that ends the session.
//
// Where the spec is silent, acbridge chooses (see docs/architecture.md):
//
//   - response.cancel with a pending request is answered with
//     interaction.resolved "cancelled" and then run.completed; without one it
//     ends the active run the same way.
//   - failure may come inside a run (run.completed follows) or outside one,
//     where it answers a rejected turn. Frame-level violations close the
//     connection after the failure.
//   - A turn is refused (run.active) while a run is active or awaited,
//     except the observation answering the pending request, which is
//     accepted whatever the run state.
//   - A request may come outside a run and stay pending across runs: a run
//     may complete over it, and the person answers it on a later turn.
//   - A run that no turn, observation, committed audio turn or open
//     microphone asked for (other than a greeting right after
//     session.established) is accepted but counted, for the client's
//     budget (run.unsolicited).
//   - Interaction ids are opaque; the reference agent names them
//     turn-<N>-<modality> as the golden trace does.
package protocol
