package nfc_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/ndef/ndeftest"
	"github.com/agentcall/acbridge/nfc/vpcd"
)

var canary4 = []byte{0x1C, 0xA4, 0xA7, 0x17}

// TestNDEFReferencesOnPCSC taps virtual NDEF tags on the vpcd reader under
// each policy (ndeftest.Cases): an allowed reference is sent as itself with
// carrier "ndef", anything else falls back to the alias or is refused under
// ndef-only, and neither the UID nor the reference reaches the log.
func TestNDEFReferencesOnPCSC(t *testing.T) {
	for _, c := range ndeftest.Cases(canary4, canary, true) {
		t.Run(c.Name, func(t *testing.T) {
			var store nfc.Aliaser
			r := newRig(t, func(o *nfc.Options) {
				store = o.Aliaser
				o.Aliaser = &nfc.References{Aliaser: o.Aliaser, Policy: c.Policy, Logger: o.Logger}
			})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := r.card.InsertTag(ctx, c.UID, c.Mem); err != nil {
				t.Fatal(err)
			}
			s, err := r.dev.Scan(ctx, 10*time.Second)
			if err != nil {
				r.record(err.Error())
			}
			c.Check(t, s, err, store.Object(scope, c.UID), r.logs.String())
		})
	}
}

// A phone (a random UID) carrying an allowed reference is still refused:
// its memory is not even read.
func TestNDEFRandomUIDStillRefused(t *testing.T) {
	c := ndeftest.Cases(canary4, canary, true)[0]
	r := newRig(t, func(o *nfc.Options) {
		o.Aliaser = &nfc.References{Aliaser: o.Aliaser, Policy: c.Policy, Logger: o.Logger}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := r.card.InsertTag(ctx, vpcd.RandomUID(), vpcd.Memory{Type4: &ndeftest.Type4{Msg: ndeftest.URIMessage(ndeftest.HARef)}}); err != nil {
		t.Fatal(err)
	}
	s, err := r.dev.Scan(ctx, 10*time.Second)
	if err != nil || !s.Unidentifiable || s.Object.ObjectRef != "" {
		t.Fatalf("scan %+v, %v; want unidentifiable", s, err)
	}
	if n := r.card.Commands(); n != 1 {
		t.Errorf("%d commands sent to a random-UID tag; want GET DATA only", n)
	}
}

// A tag lifted while its NDEF message is read is a tap to try again (the
// window stays open), never its alias: the same tag must give the same
// reference however it was tapped.
func TestNDEFReadInterruptedIsRetried(t *testing.T) {
	c := ndeftest.Cases(canary4, canary, true)[0]
	r := newRig(t, func(o *nfc.Options) {
		o.Aliaser = &nfc.References{Aliaser: o.Aliaser, Policy: c.Policy, Logger: o.Logger}
	})
	r.card.PullAwayAfter(2) // GET DATA and the capability container; the next page fails
	go func() {
		r.waitState(nfc.StateArmed)
		r.card.InsertTag(context.Background(), c.UID, c.Mem)
	}()
	unread := 0
	s, err := r.dev.ScanWith(context.Background(), 10*time.Second, &nfc.ScanOptions{OnUnread: func(err error) {
		r.record(err.Error())
		if !errors.Is(err, nfc.ErrTagLost) {
			t.Errorf("unread tap reported as %v, want ErrTagLost", err)
		}
		unread++
		go func() {
			waitTagPresent(t, false)
			r.card.InsertTag(context.Background(), c.UID, c.Mem)
		}()
	}})
	if err != nil || s.Object.ObjectRef != c.Want || unread != 1 {
		t.Fatalf("Scan = %+v, %v after %d unread taps; want the reference after 1", s, err, unread)
	}
}
