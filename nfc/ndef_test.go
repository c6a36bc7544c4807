package nfc_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/protocol"
)

const haRef = ndeftest.HAPrefix + "e3b0c442-98fc-1c14-9afb-f4c8996fb924"

var canary4 = []byte{0x1C, 0xA4, 0xA7, 0x17}

// TestNDEFReferencesOnPCSC taps virtual NDEF tags on the vpcd reader under
// each policy: an allowed reference is sent as itself with carrier "ndef",
// anything else falls back to the alias (or is refused under ndef-only), a
// tag leaving mid-read is a retry, and neither the UID nor the reference
// reaches the log.
func TestNDEFReferencesOnPCSC(t *testing.T) {
	ha := &ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{ndeftest.HAPrefix}}
	museum := &ndef.Policy{Mode: ndef.ModeNDEFThenAlias, Allowed: []string{"https://museum.example/exhibit/"}}
	only := &ndef.Policy{Mode: ndef.ModeNDEFOnly, Allowed: []string{ndeftest.HAPrefix}}
	museumRef := "https://museum.example/exhibit/7"
	for _, c := range []struct {
		name   string
		policy *ndef.Policy
		uid    []byte
		mem    vpcd.Memory
		want   string // objectRef; "" for the alias
		err    error
	}{
		{"HA tag, 7-byte UID", ha, canary, vpcd.Memory{Type2: ndeftest.Tag(canary, haRef)}, haRef, nil},
		{"HA tag, 4-byte UID", ha, canary4, vpcd.Memory{Type2: ndeftest.Image(ndeftest.NTAG213, canary4, ndeftest.NDEFTLV(ndeftest.URIMessage(haRef)))}, haRef, nil},
		{"Type 4", museum, canary, vpcd.Memory{Type4: &ndeftest.Type4{Msg: ndeftest.URIMessage(museumRef)}}, museumRef, nil},
		{"disallowed", museum, canary, vpcd.Memory{Type2: ndeftest.Tag(canary, haRef)}, "", nil},
		{"plain tag", ha, canary, vpcd.Memory{}, "", nil},
		{"over-long", ha, canary, vpcd.Memory{Type2: ndeftest.OverLong(canary)}, "", nil},
		{"broken TLV", ha, canary, vpcd.Memory{Type2: ndeftest.BrokenTLV(canary)}, "", nil},
		{"lying CC", ha, canary, vpcd.Memory{Type2: ndeftest.LyingCC(canary)}, "", nil},
		{"ndef-only refuses", only, canary, vpcd.Memory{Type2: ndeftest.BrokenTLV(canary)}, "", nfc.ErrNoReference},
		{"alias policy", &ndef.Policy{}, canary, vpcd.Memory{Type2: ndeftest.Tag(canary, haRef)}, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var store nfc.Aliaser
			r := newRig(t, func(o *nfc.Options) {
				store = o.Aliaser
				o.Aliaser = &nfc.References{Aliaser: o.Aliaser, Policy: *c.policy, Logger: o.Logger}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := r.card.InsertTag(ctx, c.uid, c.mem); err != nil {
				t.Fatal(err)
			}
			s, err := r.dev.Scan(ctx, 10*time.Second)
			if c.err != nil {
				if !errors.Is(err, c.err) {
					t.Fatalf("scan: %v, want %v", err, c.err)
				}
				r.record(err.Error())
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			alias := store.Object(scope, c.uid)
			switch {
			case c.want != "" && (s.Object.ObjectRef != c.want || s.Object.Carrier != protocol.CarrierNDEF || s.Object.Assurance != protocol.AssuranceUnverified):
				t.Fatalf("object %+v, want %s with carrier ndef", s.Object, c.want)
			case c.want == "" && s.Object != alias:
				t.Fatalf("object %+v, want the alias %+v", s.Object, alias)
			case c.want == "" && c.policy.Reads() && s.Note != nfc.FallbackNote:
				t.Fatalf("note %q, want the fallback note", s.Note)
			}
			assertNoCanary(t, "log", r.logs.Bytes())
			if strings.Contains(r.logs.String(), "home-assistant") || strings.Contains(r.logs.String(), "museum") {
				t.Errorf("the log names the reference:\n%s", r.logs.String())
			}
		})
	}
}
