package accept

import (
	"context"
	"errors"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef"
	"github.com/agentcall/acbridge/protocol"
)

// ndefStep proves the [nfc] references policy on a tag that carries a web
// address (an NDEF URI record): it is sent as itself, with carrier "ndef".
// The address is never shown, as the aliases are not.
func (r *runner) ndefStep() *step {
	return &step{id: "nfc.ndef", group: GroupNFC, title: "a tag's own web address is sent as its reference", interactive: true,
		timeout: r.o.StepTimeout, instruction: "Optional: tap a tag that carries a web address (a Home Assistant tag, or one written with a phone app), or press Enter.",
		run: r.nfcNDEF}
}

func (r *runner) nfcNDEF(ctx context.Context, t *T) error {
	switch {
	case !policyReads(r.cfg.NFC.NDEFPolicy()):
		return skipf("nfc.references is \"alias\": every tag is sent as this kiosk's own alias (set \"ndef-then-alias\" and nfc.allowed_prefixes to send tags' web addresses)")
	case r.cfg.NFC.Driver == "keyboard":
		return skipf("a keyboard-style reader types the UID and cannot read a tag's web address")
	}
	rd, err := r.rig.openReader(ctx)
	if err != nil {
		return t.needs(err, "nfc.reader", "no reader")
	}
	res, declined := optionalScan(ctx, t, rd, ActTapNDEF)
	if declined {
		return skipf("the technician had no tag with a web address at hand (optional)")
	}
	const fix = "write the tag with an address under nfc.allowed_prefixes (a phone app such as NFC Tools writes URI records), or add its prefix"
	switch {
	case errors.Is(res.err, nfc.ErrNoReference):
		return failf(fix, "the tag carries no web address under nfc.allowed_prefixes: nfc.references = \"ndef-only\" sends nothing for it")
	case res.err != nil && ctx.Err() != nil:
		return skipf("nothing was tapped (optional)")
	case res.err != nil:
		return res.err
	case res.s.Unidentifiable:
		return skipf("that tag presents a random UID (a phone): it is never sent, whatever it carries")
	case res.s.Object.Carrier != protocol.CarrierNDEF:
		return failf(fix, "the tag's web address is missing, malformed or not under nfc.allowed_prefixes: it was sent as this kiosk's alias")
	}
	t.measureDur("tagToReference", res.s.ReadyAt.Sub(res.s.PresentAt))
	t.note("sent as the tag's own web address (carrier ndef; the address is not shown, the audit log keeps its digest)")
	obj := res.s.Object
	return protocol.CheckObservation(&protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: "accept-ndef",
		CapturedAt: time.Now().UTC().Format(time.RFC3339), Intent: r.cfg.NFC.Intent, Object: &obj}, []protocol.Modality{protocol.NFC})
}

func policyReads(p ndef.Policy) bool { return p.Reads() }

// optionalScan arms rd while the technician is asked to do a, which they
// may decline; the scan's goroutine is always waited for.
func optionalScan(ctx context.Context, t *T, rd nfc.Reader, a Action) (res scanResult, declined bool) {
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	results := make(chan scanResult, 1)
	go func() { results <- scan(sctx, rd, t) }()
	select {
	case res = <-results:
		return res, false
	case <-t.prompt(ctx, Prompt{Action: a, Text: t.res.Instruction, Optional: true}):
		stop()
		<-results
		return scanResult{}, true
	}
}
