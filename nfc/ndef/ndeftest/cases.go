package ndeftest

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/protocol"
)

// HARef is the reference of the Home Assistant tag the cases tap.
const HARef = HAPrefix + "e3b0c442-98fc-1c14-9afb-f4c8996fb924"

// MuseumRef is the reference of the cases' Type 4 tag.
const MuseumRef = "https://museum.example/exhibit/7"

// Case is one tap every reader driver's stand-in must get right.
type Case struct {
	Name   string
	Policy ndef.Policy
	UID    []byte
	Mem    Memory
	// Want is the objectRef sent with carrier "ndef"; "" wants the alias
	// (with nfc.FallbackNote when the policy reads NDEF) or Err.
	Want string
	Err  error
}

// Cases are the taps of the done-when list: an allowed reference sent as
// itself, a disallowed one and malformed memories falling back to the
// alias, ndef-only refusing, on a 4-byte and a 7-byte UID tag. type4 adds
// the ISO-DEP tag (drivers that speak ISO-DEP).
func Cases(uid4, uid7 []byte, type4 bool) []Case {
	ha := ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{HAPrefix}}
	museum := ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{"https://museum.example/exhibit/"}}
	only := ndef.Policy{Mode: ndef.ModeNDEFOnly, Allowed: []string{HAPrefix}}
	cs := []Case{
		{"HA tag, 7-byte UID", ha, uid7, Memory{Type2: Tag(uid7, HARef)}, HARef, nil},
		{"HA tag, 4-byte UID", ha, uid4, Memory{Type2: Image(NTAG213, uid4, NDEFTLV(URIMessage(HARef)))}, HARef, nil},
		{"disallowed", museum, uid7, Memory{Type2: Tag(uid7, HARef)}, "", nil},
		{"plain tag", ha, uid7, Memory{}, "", nil},
		{"over-long", ha, uid7, Memory{Type2: OverLong(uid7)}, "", nil},
		{"broken TLV", ha, uid7, Memory{Type2: BrokenTLV(uid7)}, "", nil},
		{"lying CC", ha, uid7, Memory{Type2: LyingCC(uid7)}, "", nil},
		{"ndef-only refuses", only, uid7, Memory{Type2: BrokenTLV(uid7)}, "", nfc.ErrNoReference},
		{"alias policy", ndef.Policy{}, uid7, Memory{Type2: Tag(uid7, HARef)}, "", nil},
	}
	if type4 {
		cs = append(cs, Case{"Type 4", museum, uid7, Memory{Type4: &Type4{Msg: URIMessage(MuseumRef)}}, MuseumRef, nil})
	}
	return cs
}

// Check fails t unless the scan s, err is what c wants; alias is the
// tag's keyed alias. logs must name neither reference.
func (c *Case) Check(t testing.TB, s nfc.Scan, err error, alias protocol.Object, logs string) {
	t.Helper()
	switch {
	case c.Err != nil && !errors.Is(err, c.Err):
		t.Fatalf("scan: %v, want %v", err, c.Err)
	case c.Err != nil:
	case err != nil:
		t.Fatal(err)
	case c.Want != "" && (s.Object.ObjectRef != c.Want || s.Object.Carrier != protocol.CarrierNDEF || s.Object.Assurance != protocol.AssuranceUnverified):
		t.Fatalf("object %+v, want %s with carrier ndef", s.Object, c.Want)
	case c.Want == "" && s.Object != alias:
		t.Fatalf("object %+v, want the alias %+v", s.Object, alias)
	case c.Want == "" && c.Policy.Reads() && s.Note != nfc.FallbackNote:
		t.Fatalf("note %q, want the fallback note", s.Note)
	}
	for _, ref := range []string{"home-assistant", "museum.example"} {
		if strings.Contains(logs, ref) {
			t.Errorf("the log names the reference:\n%s", logs)
		}
	}
}
