// Package notice is what the daemon shows the person in front of the kiosk:
// the bridge produces notices, the terminal and the kiosk page render them.
// A package of its own so that displays depend on it, not on the bridge
// (docs/architecture.md, "Layers"). A notice never carries a UID, an
// alias or image bytes.
package notice

import (
	"fmt"
	"strings"

	"github.com/agentcall/acbridge/protocol"
)

// Kind says what a Notice is about.
type Kind string

// The kinds of notices.
const (
	Connected    Kind = "connected"      // Text: agent origin; Modalities usable
	Disconnected Kind = "disconnected"   // Text: why, in plain words
	AgentText    Kind = "agent.text"     // Text: a piece of the agent's answer
	RunDone      Kind = "agent.done"     // the agent finished answering
	Prompt       Kind = "agent.prompt"   // Text: the prompt; Control answers it
	Resolved     Kind = "agent.resolved" // Text: said when the request was cancelled
	Failure      Kind = "agent.failure"  // Text: message; Code
	Armed        Kind = "armed"          // Control armed (scan: the reader; photo: the camera)
	Disarmed     Kind = "disarmed"       // Control's collection ended without sending; Text: why
	Sent         Kind = "sent"           // Control's observation left the device
	User         Kind = "user"           // Text: what the person said
	Hint         Kind = "hint"           // Text: how to use Control, now that it works
	Info         Kind = "info"           // Text: anything else, in plain words
	// Refused: a press (Control) or a typed line (no Control) that was not
	// acted on and is not kept for later; Text says why.
	Refused Kind = "refused"
)

// NotConnected is the Refused text for input with no session to serve it.
const NotConnected = "not connected — press again when it says connected"

// Notice is one thing shown to the person.
type Notice struct {
	Kind       Kind
	Text       string
	Control    string
	Code       string
	Modalities []protocol.Modality
	// AgentVoice, on Connected, says the agent speaks its answers itself
	// (voice over WebRTC): a display that reads the screen aloud leaves
	// the agent's words to it rather than say them twice.
	AgentVoice bool
}

// Line is the terminal form of a notice ("" for none).
func (n Notice) Line() string {
	switch n.Kind {
	case Connected:
		return fmt.Sprintf("[connected to %s; you can use: %s]", n.Text, DescribeModalities(n.Modalities))
	case Disconnected:
		return "[not connected: " + n.Text + "]"
	case AgentText:
		return "agent: " + n.Text
	case Prompt:
		return fmt.Sprintf("agent asks: %s — press %s", n.Text, strings.ToUpper(n.Control))
	case Failure:
		return fmt.Sprintf("[agent: %s (%s)]", n.Text, n.Code)
	case User:
		return "you: " + n.Text
	case RunDone:
		return ""
	case Resolved:
		if n.Text == "" {
			return ""
		}
	}
	return "[" + n.Text + "]"
}

// DescribeModalities names modalities for a person.
func DescribeModalities(ms []protocol.Modality) string {
	if len(ms) == 0 {
		return "text only"
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = map[protocol.Modality]string{protocol.NFC: "tag scan", protocol.Photo: "photo"}[m]
	}
	return strings.Join(parts, ", ")
}
