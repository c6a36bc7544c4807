package conformance

import (
	"encoding/json"
	"strings"
)

// ReferenceWalkthrough is the public walkthrough as acbridge's reference
// agent answers it, for replays that compare texts (--strict-text). It
// differs from the public trace only where the spec asks more than its
// texts show: a later teaching proposal says "Proposal staged, not stored."
// there, while the reference agent names the label it will remember
// ("Proposal staged, not stored: Other object."), since every proposal must
// "show what will be remembered".
func ReferenceWalkthrough() []Step {
	f, err := Parse(PublicFixtures)
	if err != nil {
		// PublicFixtures is embedded and checked by the tests.
		panic("conformance: embedded public fixtures: " + err.Error())
	}
	steps := make([]Step, len(f.Walkthrough))
	label := ""
	for i, st := range f.Walkthrough {
		steps[i] = st
		var m struct {
			Type  string `json:"type"`
			Text  string `json:"text"`
			Event *struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"event"`
		}
		if json.Unmarshal(st.Message, &m) != nil {
			continue
		}
		if st.Direction == "client" && m.Type == "user.turn" {
			if l, ok := strings.CutPrefix(m.Text, "teach object "); ok {
				label = l
			}
		}
		if st.Direction == "server" && m.Event != nil && m.Event.Text == "Proposal staged, not stored." && label != "" {
			named, _ := json.Marshal("Proposal staged, not stored: " + label + ".")
			steps[i].Message = json.RawMessage(strings.Replace(string(st.Message), `"Proposal staged, not stored."`, string(named), 1))
		}
	}
	return steps
}
