package main

import (
	"context"
	"strings"
	"testing"

	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
	"github.com/agentcall/acbridge/protocol"
)

// scan --json prints a tag's own web address when --references and
// --allowed-prefixes allow it, and the alias with a note when they do not.
func TestScanNDEFReference(t *testing.T) {
	for _, c := range []struct {
		prefix, want string
	}{
		{ndeftest.HAPrefix, ndeftest.HARef},
		{"https://museum.example/exhibit/", ""},
	} {
		t.Run(c.prefix, func(t *testing.T) { scanNDEF(t, c.prefix, c.want) })
	}
	if code, _, errs := run(t, "scan", "--references", "ndef-only"); code != 2 || !strings.Contains(errs, "allowed_prefixes") {
		t.Errorf("ndef-only without prefixes: exit %d, %s", code, errs)
	}
}

func scanNDEF(t *testing.T, prefix, wantRef string) {
	card, store, path := scanRig(t)
	if err := card.InsertTag(context.Background(), scanCanary, vpcd.Memory{Type2: ndeftest.Tag(scanCanary, ndeftest.HARef)}); err != nil {
		t.Fatal(err)
	}
	code, out, errs := run(t, "scan", "--once", "--json", "--keystore", path, "--reader", vpcdtest.Reader, "--window", "10s",
		"--references", "ndef-then-alias", "--allowed-prefixes", prefix)
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errs)
	}
	assertNoScanCanary(t, "stdout", out)
	assertNoScanCanary(t, "stderr", errs)
	obs, err := protocol.CheckObservationJSON([]byte(strings.TrimSpace(out)), []protocol.Modality{protocol.NFC})
	if err != nil {
		t.Fatalf("printed observation invalid: %v\n%s", err, out)
	}
	scope, _ := keystore.CanonicalScope(defaultScanScope)
	want := store.Object(scope, scanCanary)
	if wantRef != "" {
		want = protocol.Object{ObjectRef: wantRef, Carrier: "ndef", Assurance: "unverifiedTag", PayloadSHA256: obs.Object.PayloadSHA256}
	} else if !strings.Contains(errs, "note: the tag carries no web address this kiosk accepts") {
		t.Errorf("no fallback note on stderr:\n%s", errs)
	}
	if *obs.Object != want {
		t.Errorf("object %+v, want %+v", *obs.Object, want)
	}
}
