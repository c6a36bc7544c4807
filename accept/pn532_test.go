package accept_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentcall/acbridge/accept"
	"github.com/agentcall/acbridge/config"
	"github.com/agentcall/acbridge/keystore"
	"github.com/agentcall/acbridge/nfc/pn532/pn532test"
)

// boardTech is a technician at a kiosk whose reader is the emulated PN532:
// lifting a tag empties the field until the reader has polled it empty,
// as a hand does between two taps.
type boardTech struct{ e *pn532test.Emulator }

var boardTags = [][]byte{{0x04, 0x51, 0x62, 0x73, 0x84, 0x95, 0xA6}, {0x3C, 0x11, 0x9A, 0x42}}

func (b boardTech) Do(_ context.Context, p accept.Prompt) <-chan struct{} {
	b.e.SetTag(nil)
	switch p.Action {
	case accept.ActTap:
		go func() {
			n := b.e.Polls()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			b.e.Wait(ctx, func() bool { return b.e.Polls() >= n+5 }) // a timeout taps all the same
			b.e.SetTag(boardTags[p.Tag-1])
		}()
	case accept.ActTapPhone:
		b.e.SetTag([]byte{0x08, 0x12, 0x34, 0x56})
	}
	return nil
}

func (boardTech) Ask(context.Context, accept.Prompt) (bool, error) { return true, nil }

func pn532Config(t *testing.T, dev string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte("[agent]\nurl = \"https://agent.example\"\n[modalities]\nenabled = [\"nfc\"]\n[nfc]\ndriver = \"pn532\"\ndevice = \"" + dev + "\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Keystore.Path = filepath.Join(t.TempDir(), "keystore.json")
	if _, err := keystore.Create(cfg.Keystore.Path); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func results(rep *accept.Report) map[string]accept.StepResult {
	m := map[string]accept.StepResult{}
	for _, s := range rep.Steps {
		m[s.ID] = s
	}
	return m
}

// doctor's env.pn532 asks the board its firmware; pcscd is not needed for
// this driver; the NFC steps of the acceptance pass on the board.
func TestAcceptPN532(t *testing.T) {
	e := pn532test.Start(t)
	rep, err := accept.Run(context.Background(), &accept.Options{Config: pn532Config(t, e.Path), Technician: boardTech{e},
		Only: []string{"env.pn532", "env.pcscd", "nfc"}, NoTapWindow: time.Second, StepTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	r := results(rep)
	if s := r["env.pn532"]; s.Result != accept.Pass || !strings.Contains(strings.Join(s.Notes, " "), "PN532 firmware 1.6") ||
		!strings.Contains(strings.Join(s.Notes, " "), "answers on "+e.Path) {
		t.Errorf("env.pn532: %+v", s)
	}
	if s := r["env.pcscd"]; s.Result != accept.Skip {
		t.Errorf("env.pcscd: %+v", s)
	}
	for _, id := range []string{"nfc.reader", "nfc.tap1", "nfc.tap1-again", "nfc.tap2", "nfc.no-tap", "nfc.random-uid"} {
		if s := r[id]; s.Result != accept.Pass {
			t.Errorf("%s: %s %s (fix %s)", id, s.Result, s.Reason, s.Fix)
		}
	}
}

// A board that does not answer fails env.pn532 with the wiring and HSU
// fix; a missing port with the UART fix.
func TestDoctorPN532Broken(t *testing.T) {
	e := pn532test.Start(t)
	e.SetFault(pn532test.Silent, -1)
	for dev, fix := range map[string]string{e.Path: "HSU/UART", filepath.Join(t.TempDir(), "ttyAMA0"): "enable_uart=1"} {
		rep, err := accept.Run(context.Background(), &accept.Options{Config: pn532Config(t, dev), Only: []string{"env.pn532"}})
		if err != nil {
			t.Fatal(err)
		}
		if s := results(rep)["env.pn532"]; s.Result != accept.Fail || !strings.Contains(s.Fix, fix) {
			t.Errorf("%s: %+v", dev, s)
		}
	}
}
