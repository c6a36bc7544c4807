package nfc_test

import (
	"slices"
	"testing"
	"time"

	"github.com/agentcall/acbridge/nfc"
	"github.com/agentcall/acbridge/nfc/vpcd/vpcdtest"
)

var (
	hdrBuzzerOff = [4]byte{0xFF, 0x00, 0x52, 0x00}
	hdrGetData   = [4]byte{0xFF, 0xCA, 0x00, 0x00}
)

// tapOnce arms, taps uid, checks the alias came through and lifts the tag.
func (r *rig) tapOnce(uid []byte) {
	r.t.Helper()
	r.arm(10 * time.Second)
	r.waitState(nfc.StateArmed)
	r.tap(uid)
	if s := r.mustNext(); s.Err != nil || s.Unidentifiable || s.Object != r.store.Object(scope, uid) {
		r.t.Fatalf("scan = %+v", s)
	}
	r.waitState(nfc.StateReady)
	r.lift()
}

// The vpcd card answers the buzzer command 6D00, as a clone ACR122U
// refuses it: the tap is read all the same, and the command is sent once
// per session, not on every tap.
func TestBuzzerTurnedOffOncePerSession(t *testing.T) {
	nfc.SetBuzzerReaders(t, vpcdtest.Reader)
	r := newRig(t, nil)
	r.tapOnce(canary)
	r.tapOnce(other)
	want := [][4]byte{hdrBuzzerOff, hdrGetData, hdrGetData}
	if got := r.card.Headers(); !slices.Equal(got, want) {
		t.Errorf("commands = % X, want % X", got, want)
	}
}

func TestBuzzerKeptOnOrOtherReader(t *testing.T) {
	for name, c := range map[string]struct {
		readers []string
		buzzer  bool
	}{
		"buzzer on":    {[]string{vpcdtest.Reader}, true},
		"other reader": {[]string{"ACR122"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			nfc.SetBuzzerReaders(t, c.readers...)
			r := newRig(t, func(o *nfc.Options) { o.Buzzer = c.buzzer })
			r.tapOnce(canary)
			if got, want := r.card.Headers(), [][4]byte{hdrGetData}; !slices.Equal(got, want) {
				t.Errorf("commands = % X, want % X", got, want)
			}
		})
	}
}
