package bridge_test

import (
	"strings"
	"testing"

	"github.com/agentcall/acbridge/bridge"
	"github.com/agentcall/acbridge/button"
	"github.com/agentcall/acbridge/protocol"
)

// TestButtonsToldWhatCannotAct: with no camera configured and a text-only
// agent, the person at the buttons is told at the session's start that
// PHOTO and TALK cannot act and why, as the kiosk page greys them out with
// a reason; a press then says the same reason.
func TestButtonsToldWhatCannotAct(t *testing.T) {
	r := newRig(t, func(r *rig) {
		r.tune = func(o *bridge.Options) { o.Devices.Camera = nil }
	})
	waitNotice(t, r.out, "connected with nfc", connectedWith(protocol.NFC), 1)
	waitFor(t, r.out, "[PHOTO: not available — no camera is configured]", 1)
	waitFor(t, r.out, "[TALK: not available — this agent takes text only]", 1)
	if strings.Contains(r.out.String(), "SCAN: not available") {
		t.Errorf("SCAN said unavailable with a reader:\n%s", r.out.String())
	}
	r.press(button.Photo)
	waitFor(t, r.out, "photo is not available in this session: no camera is configured", 1)
	r.press(button.Talk)
	waitNotice(t, r.out, "the TALK press refused", refusedPress(button.Talk), 1)
}
