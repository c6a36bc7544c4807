package bridge

import (
	"slices"
	"strings"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/protocol"
)

// sayUnavailable tells the person at the buttons, when a session starts,
// which of them cannot act in it and why, as the kiosk page greys them out
// with a reason: a button help that lists PHOTO on a kiosk with no camera
// would promise what a press then refuses. Only with buttons: without
// them there is nothing to press.
func (c *conv) sayUnavailable(voice bool) {
	b := c.b
	if b.o.Devices.Buttons == nil {
		return
	}
	for _, m := range []protocol.Modality{protocol.NFC, protocol.Photo} {
		if !slices.Contains(c.s.Negotiated(), m) {
			b.printAndDisplayInfo("%s: not available — %s", strings.ToUpper(kindOfModality(m).control), b.whyAbsent(m))
		}
	}
	if !voice {
		b.printAndDisplayInfo("%s: not available — this agent takes text only", strings.ToUpper(button.Talk))
	}
}
