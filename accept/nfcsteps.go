package accept

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/protocol"
)

// The NFC steps prove the reader end to end through package nfc: a tap
// inside an armed window gives an alias, the same tag the same alias,
// another tag another one, no tap nothing, and a random-UID tag (a phone)
// is reported unidentifiable. Only aliases reach this package; they are
// compared, never printed or written into the report.

func (r *runner) nfcSteps() []*step {
	to := r.o.StepTimeout
	tapFix := "tap the tag flat on the reader's marked spot within the time; if the reader never reacts, try `acbridge scan` and check the reader's LED and cable"
	return []*step{
		{id: "nfc.reader", group: GroupNFC, title: "the NFC reader is found", timeout: 10 * time.Second, run: r.nfcReader},
		{id: "nfc.tap1", group: GroupNFC, title: "tag 1 gives an alias", interactive: true, timeout: to,
			instruction: "Tap tag 1 on the reader and leave it there.", timeoutFix: tapFix,
			run: func(ctx context.Context, t *T) error { return r.nfcTap(ctx, t, 1) }},
		{id: "nfc.tap1-again", group: GroupNFC, title: "tag 1 again gives the same alias", interactive: true, timeout: to,
			requires: []string{"nfc.tap1"}, instruction: "Lift tag 1 off the reader and tap it again.",
			timeoutFix: "lift the tag completely off the reader, then tap it again: a tag left on the reader is read only once",
			run:        func(ctx context.Context, t *T) error { return r.nfcTap(ctx, t, 3) }},
		{id: "nfc.tap2", group: GroupNFC, title: "tag 2 gives a different alias", interactive: true, timeout: to,
			requires: []string{"nfc.tap1"}, instruction: "Lift tag 1 and tap tag 2 on the reader.", timeoutFix: tapFix,
			run: func(ctx context.Context, t *T) error { return r.nfcTap(ctx, t, 2) }},
		{id: "nfc.no-tap", group: GroupNFC, title: "nothing is read without a tap", interactive: true, timeout: to + r.o.NoTapWindow,
			instruction: r.noTapInstruction(), timeoutFix: "press the scan button once after taking the tags away",
			run: r.nfcNoTap},
		{id: "nfc.random-uid", group: GroupNFC, title: "a phone or random-UID tag is reported unidentifiable", interactive: true, timeout: to,
			instruction: "Optional: hold a phone (NFC on) or a random-UID tag on the reader.",
			run:         r.nfcRandom},
		r.ndefStep(),
	}
}

func (r *runner) noTapInstruction() string {
	if r.scanButton() {
		return fmt.Sprintf("Take every tag off the reader, press SCAN once, and wait %v without tapping anything.", r.o.NoTapWindow)
	}
	return fmt.Sprintf("Take every tag off the reader and wait %v without tapping anything.", r.o.NoTapWindow)
}

// scanButton reports whether a scan control is configured that the
// acceptance can read (terminal keys are the technician's own keyboard).
func (r *runner) scanButton() bool {
	for _, c := range r.controls() {
		if c == button.Scan {
			return true
		}
	}
	return false
}

func (r *runner) nfcReader(ctx context.Context, t *T) error {
	if !r.cfg.Enabled("nfc") {
		t.note("the nfc modality is not enabled (modalities.enabled); checking the reader anyway")
	}
	if _, err := r.rig.openReader(ctx); err != nil {
		return failErr(err, "")
	}
	t.note("reader %q", r.report.Device.Reader)
	if r.rig.readyIn > 0 {
		t.measureDur("readyIn", r.rig.readyIn)
	}
	if _, tmp, _ := r.rig.aliaser(); tmp {
		t.note("the keystore did not open (see env.keystore): aliases come from a temporary key for this acceptance")
	}
	return nil
}

type scanResult struct {
	s   nfc.Scan
	err error
}

// scan arms rd until ctx ends and returns the first result (a tag pulled
// away mid-read is a note, not a result); the goroutine is always waited
// for.
func scan(ctx context.Context, rd nfc.Reader, t *T) scanResult {
	for {
		window := time.Until(deadlineOf(ctx, nfc.MaxWindow))
		if window <= 0 {
			return scanResult{err: ctx.Err()}
		}
		s, err := rd.ScanWith(ctx, min(window, nfc.MaxWindow), &nfc.ScanOptions{OnUnread: func(error) {
			t.note("couldn't read the tag (it moved away mid-read); hold it still, the reader stays armed")
		}})
		switch {
		case errors.Is(err, nfc.ErrNoTag) && ctx.Err() == nil:
			continue
		case errors.Is(err, nfc.ErrNoTag):
			return scanResult{err: ctx.Err()}
		}
		return scanResult{s, err}
	}
}

func deadlineOf(ctx context.Context, max time.Duration) time.Time {
	if d, ok := ctx.Deadline(); ok {
		return d
	}
	return time.Now().Add(max)
}

// nfcTap runs tag 1 (which=1), tag 2 (2) or tag 1 again (3).
func (r *runner) nfcTap(ctx context.Context, t *T, which int) error {
	rd, err := r.rig.openReader(ctx)
	if err != nil {
		return t.needs(err, "nfc.reader", "no reader")
	}
	if which != 1 && r.rig.tags[0] == nil {
		return skipf("tag 1 was not read (see nfc.tap1)")
	}
	tag := which
	if which == 3 {
		tag = 1
	}
	results := make(chan scanResult, 1)
	go func() { results <- scan(ctx, rd, t) }()
	t.prompt(ctx, Prompt{Action: ActTap, Tag: tag, Text: t.res.Instruction})
	var res scanResult
	for {
		res = <-results
		if res.err != nil || !res.s.Unidentifiable {
			break
		}
		t.note("that tag presents a random UID (a phone or an emulated card) and cannot be identified; tap tag %d", tag)
		go func() { results <- scan(ctx, rd, t) }()
	}
	if res.err != nil {
		if fixFor(res.err) == fixGeneric {
			return failErr(res.err, nfc.WarnTagRead.Fix)
		}
		return res.err
	}
	s := res.s
	t.measureDur("tagToAlias", s.ReadyAt.Sub(s.PresentAt))
	t.measureDur("readerTime", s.ReaderTime)
	obj := s.Object
	switch which {
	case 1:
		r.rig.tags[0] = &obj
		t.note("alias read (objectRef not shown)")
	case 3:
		if obj.ObjectRef != r.rig.tags[0].ObjectRef {
			return failf("make sure it was tag 1; a tag whose identifier changes between taps (a random-UID card) cannot be recognized: use NTAG21x or MIFARE tags",
				"tag 1 gave a different alias the second time")
		}
		t.note("same alias as the first tap")
	case 2:
		if obj.ObjectRef == r.rig.tags[0].ObjectRef {
			return failf("tap the second, different tag", "tag 2 gave the same alias as tag 1: it is the same tag")
		}
		r.rig.tags[1] = &obj
		t.note("alias differs from tag 1's")
	}
	if err := protocol.CheckObservation(&protocol.Observation{SchemaVersion: protocol.SchemaVersion, ObservationID: "accept-nfc",
		CapturedAt: s.ReadyAt.UTC().Format(time.RFC3339), Intent: r.cfg.NFC.Intent, Object: &obj}, []protocol.Modality{protocol.NFC}); err != nil {
		return failErr(err, "the reader's alias does not pass the 0.1 observation checks: report this as an acbridge bug")
	}
	return nil
}

// waitPress waits for a press of control on the buttons, after dropping
// events left over from earlier steps.
func (r *runner) waitPress(ctx context.Context, src button.Source, control string) (button.Event, time.Time, error) {
	for {
		ev, err := src.Read(ctx)
		if err != nil {
			return ev, time.Time{}, err
		}
		if ev.Control == control && ev.Pressed && !ev.Long {
			return ev, time.Now(), nil
		}
	}
}

func drain(src button.Source) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Millisecond)
		_, err := src.Read(ctx)
		cancel()
		if err != nil {
			return
		}
	}
}

func (r *runner) nfcNoTap(ctx context.Context, t *T) error {
	rd, err := r.rig.openReader(ctx)
	if err != nil {
		return t.needs(err, "nfc.reader", "no reader")
	}
	var src button.Source
	if r.scanButton() {
		if src, err = r.rig.openButtons(); err != nil {
			t.note("the buttons did not open (%v): the reader is armed without a press", err)
			src = nil
		} else {
			drain(src)
		}
	}
	p := Prompt{Action: ActRemove, Text: t.res.Instruction}
	if src != nil {
		p.Control = button.Scan
	}
	t.prompt(ctx, p)
	if src != nil {
		if _, _, err := r.waitPress(ctx, src, button.Scan); err != nil {
			return err
		}
	}
	s, err := rd.Scan(ctx, r.o.NoTapWindow)
	switch {
	case errors.Is(err, nfc.ErrNoTag):
		t.measureDur("armedFor", r.o.NoTapWindow)
		t.note("the armed window passed and nothing was read")
		return nil
	case err == nil || s.Err != nil:
		return failf("take every tag and phone out of the reader's field and run the step again (acbridge accept --only nfc.no-tap)",
			"something was read in the armed window although nothing was tapped")
	}
	return err
}

func (r *runner) nfcRandom(ctx context.Context, t *T) error {
	rd, err := r.rig.openReader(ctx)
	if err != nil {
		return t.needs(err, "nfc.reader", "no reader")
	}
	res, declined := optionalScan(ctx, t, rd, ActTapPhone)
	if declined {
		return skipf("the technician had no phone or random-UID tag at hand (optional)")
	}
	if res.err != nil {
		if ctx.Err() != nil {
			return skipf("nothing was tapped (optional)")
		}
		return res.err
	}
	if !res.s.Unidentifiable {
		return skipf("that tag presents a fixed UID, so it is an ordinary tag: nothing to prove (a phone in card emulation presents a random one)")
	}
	t.note("reported unidentifiable: it would not be sent to the agent")
	return nil
}
