package agent

import (
	"golang.org/x/text/language"

	"github.com/agentcall/acbridge/protocol"
)

// noteLanguage logs the person's language when a turn carries it as a
// Context entry (protocol.ContextLanguage). The reference agent answers in
// English whatever it is told; the line lets an operator, and the kiosk's
// tests, see what a model would have been given. Only a well-formed BCP 47
// tag is logged, in its canonical form: a context value is client input.
func (c *conversation) noteLanguage(entries []protocol.ContextEntry) {
	for _, e := range entries {
		if e.Description != protocol.ContextLanguage {
			continue
		}
		if len(e.Value) > 35 { // RFC 5646's longest tag worth keeping
			c.log.Info("agent: language context refused: too long")
			return
		}
		tag, err := language.Parse(e.Value)
		if err != nil {
			c.log.Info("agent: language context refused: not a BCP 47 tag")
			return
		}
		c.log.Info("agent: turn in language", "lang", tag.String())
		return
	}
}
