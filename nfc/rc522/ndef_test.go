package rc522_test

import (
	"testing"

	"periph.io/x/conn/v3/spi"

	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/rc522"
	"github.com/agentcall/acbridge/nfc/rc522/rc522test"
)

// TestNDEFReferencesOnSim taps the NDEF cases on the register-level
// stand-in: Type 2 pages by READ with CRC_A; an ISO-DEP tag, which this
// driver cannot read, falls back to its alias. No UID and no reference
// reach the log.
func TestNDEFReferencesOnSim(t *testing.T) {
	uid4 := []byte{0xC4, 0x4A, 0xA2, 0x1E}
	uid7 := []byte{0x04, 0xCA, 0x4A, 0x21, 0xE5, 0x0D, 0x80}
	cases := ndeftest.Cases(uid4, uid7, true)
	cases[len(cases)-1].Name, cases[len(cases)-1].Want = "Type 4 falls back", ""
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			sim := &rc522test.Sim{}
			sim.PlaceTag(c.UID, c.Mem)
			open := rc522.OpenFunc(&rc522.Options{OpenPort: func() (spi.PortCloser, error) { return sim, nil }})
			c.RunPolled(t, open, func(t *testing.T, where, s string) { noUIDIn(t, where, s, c.UID) })
		})
	}
}
