package station

import (
	"log/slog"
	"testing"

	"github.com/agentcall/acbridge/config"
)

func TestVoicePartsFollowTheConfiguration(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	a := config.Defaults().Audio
	vol, p, err := voiceParts(a, log)
	if err != nil || vol == nil || p == nil || !p.Cancels() {
		t.Fatalf("defaults (echo_cancel auto): volume %v, processor %v, %v", vol, p, err)
	}
	p.Close()
	a.EchoCancel = "off"
	if _, p, err := voiceParts(a, log); err != nil || p != nil {
		t.Errorf("echo_cancel off, no noise suppression, no gain: processor %v, %v", p, err)
	}
	a.MicGainDB = 6
	if _, p, err := voiceParts(a, log); err != nil || p == nil || p.Cancels() {
		t.Errorf("echo_cancel off with a gain: processor %v, %v", p, err)
	} else {
		p.Close()
	}
}
